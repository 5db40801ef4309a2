//go:build darwin || windows

package tray

import "log/slog"

// checkHost: macOS and Windows always have the system's own tray.
func checkHost(*slog.Logger) error { return nil }
