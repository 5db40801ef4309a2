package views

import (
	"log/slog"
	"os"
)

// The tests open many databases without a Logger in their Options, so
// each would log at INFO through slog's default logger (a replay of the
// write-ahead log, a layout migration). The tests' default logger shows
// warnings and errors only.
func init() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
