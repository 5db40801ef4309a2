// Package config is padd's own settings file, padd.toml in the data
// directory: what it holds, how it is read, and the watch that reloads it.
// The environment overrides the file; a broken file keeps the last good
// settings and says why.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// FileName is the settings file's name in the data directory.
const FileName = "padd.toml"

// MaxFileBytes bounds the file padd reads: a settings file is a few lines.
const MaxFileBytes = 1 << 20

// Settings are padd's settings, as the file spells them.
type Settings struct {
	// LogLevel is debug, info, warn or error ("" is info). Applied live.
	LogLevel string `toml:"log_level"`
	// Port is the loopback port padd asks for at start (0: padd's default,
	// else any free port). Read at start only: a change needs a restart.
	Port int `toml:"port"`
	// Mirror holds the mirror folders' settings (docs/MIRROR.md).
	Mirror Mirror `toml:"mirror"`
}

// Mirror holds the mirror folders' settings.
type Mirror struct {
	// OnDelete is what a deleted file does to its item: "archive" (the
	// default, restorable) or "keep" (the item stays; the next change to
	// it writes the file again). Applied live.
	OnDelete string `toml:"on_delete"`
}

// Mirror's OnDelete values.
const (
	OnDeleteArchive = "archive"
	OnDeleteKeep    = "keep"
)

// Path is the settings file of a data directory.
func Path(dataDir string) string { return filepath.Join(dataDir, FileName) }

// Level is the slog level LogLevel names.
func (s Settings) Level() slog.Level {
	l, _ := parseLevel(s.LogLevel)
	return l
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log_level %q is not one of debug, info, warn, error", s)
}

// Validate refuses a value padd cannot use, naming the key.
func (s Settings) Validate() error {
	if _, err := parseLevel(s.LogLevel); err != nil {
		return err
	}
	if s.Port < 0 || s.Port > 65535 {
		return fmt.Errorf("port %d is not a TCP port (0 to 65535)", s.Port)
	}
	switch s.Mirror.OnDelete {
	case "", OnDeleteArchive, OnDeleteKeep:
	default:
		return fmt.Errorf("mirror.on_delete %q is not one of %q, %q", s.Mirror.OnDelete, OnDeleteArchive, OnDeleteKeep)
	}
	return nil
}

// Parse reads a settings file's bytes. Keys padd does not know are
// returned as warnings, not refused: a newer padd's file still loads.
func Parse(b []byte) (s Settings, unknown []string, err error) {
	if len(b) > MaxFileBytes {
		return Settings{}, nil, fmt.Errorf("%s is %d bytes, more than the %d padd reads", FileName, len(b), MaxFileBytes)
	}
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&s)
	if err != nil {
		return Settings{}, nil, err
	}
	for _, k := range md.Undecoded() {
		unknown = append(unknown, k.String())
	}
	sort.Strings(unknown)
	if err := s.Validate(); err != nil {
		return Settings{}, unknown, err
	}
	return s, unknown, nil
}

// Load reads the settings file at path; a missing file is the defaults.
func Load(path string) (Settings, []string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Settings{}, nil, nil
	}
	if err != nil {
		return Settings{}, nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return Settings{}, nil, err
	}
	s, unknown, err := Parse(buf.Bytes())
	if err != nil {
		return Settings{}, unknown, fmt.Errorf("%s: %w", path, err)
	}
	return s, unknown, nil
}

// Overlay applies the environment over s: PADD_LOG_LEVEL, PADD_PORT and
// PADD_MIRROR_ON_DELETE win over the file. A bad value is a warning and
// leaves the file's.
func Overlay(s Settings, getenv func(string) string) (Settings, []string) {
	var warns []string
	if v := getenv("PADD_LOG_LEVEL"); v != "" {
		if _, err := parseLevel(v); err != nil {
			warns = append(warns, "PADD_LOG_LEVEL: "+err.Error())
		} else {
			s.LogLevel = v
		}
	}
	if v := getenv("PADD_PORT"); v != "" {
		var p int
		if _, err := fmt.Sscanf(v, "%d", &p); err != nil || p < 0 || p > 65535 || fmt.Sprint(p) != strings.TrimSpace(v) {
			warns = append(warns, fmt.Sprintf("PADD_PORT %q is not a TCP port; ignored", v))
		} else {
			s.Port = p
		}
	}
	if v := getenv("PADD_MIRROR_ON_DELETE"); v != "" {
		t := s
		t.Mirror.OnDelete = v
		if err := t.Validate(); err != nil {
			warns = append(warns, "PADD_MIRROR_ON_DELETE: "+err.Error())
		} else {
			s = t
		}
	}
	return s, warns
}

// RestartNeeded names the settings that differ between old and new and
// apply only at start.
func RestartNeeded(old, new Settings) []string {
	var out []string
	if old.Port != new.Port {
		out = append(out, "port")
	}
	return out
}
