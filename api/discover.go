package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// Version is this build's version, set with
// -ldflags "-X github.com/padd/padd/api.Version=v1.2.3".
var Version = "dev"

// DefaultPort is padd's loopback port when free: clear of Pad's own 7777.
const DefaultPort = 7787

// InfoFile is the file in the data directory through which clients find
// the running padd.
const InfoFile = "daemon.json"

// Info is the content of daemon.json.
type Info struct {
	PID       int       `json:"pid"`
	Port      int       `json:"port"`
	Token     string    `json:"token"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"started_at"`
}

// URL is the base URL of the running padd.
func (i *Info) URL() string { return "http://127.0.0.1:" + strconv.Itoa(i.Port) }

// DataDir is the per-user data directory: PAD_HOME when set, else the
// OS's per-user data location.
func DataDir() (string, error) {
	if d := os.Getenv("PAD_HOME"); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", "padd"), nil
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "padd"), nil
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "padd"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep padd's data in; set PAD_HOME: %w", err)
	}
	return filepath.Join(home, ".local", "share", "padd"), nil
}

// ErrNoDaemon means daemon.json is absent: no padd has announced itself.
var ErrNoDaemon = errors.New("padd is not running")

// ReadInfo reads daemon.json from the data directory.
func ReadInfo(dir string) (*Info, error) {
	b, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoDaemon
	}
	if err != nil {
		return nil, err
	}
	var i Info
	if err := json.Unmarshal(b, &i); err != nil {
		return nil, fmt.Errorf("%s is unreadable (%v); padd rewrites it when it starts", filepath.Join(dir, InfoFile), err)
	}
	if why := i.problem(); why != "" {
		return nil, fmt.Errorf("%s is unreadable (%s); padd rewrites it when it starts", filepath.Join(dir, InfoFile), why)
	}
	return &i, nil
}

// problem says what makes an Info unusable, or "": a client must never
// act on a pid it could not own (signals to pid 0 or -1 reach a whole
// group), dial a port that cannot exist, or send a token that would not
// be one header value.
func (i *Info) problem() string {
	switch {
	case i.PID <= 0:
		return fmt.Sprintf("pid %d", i.PID)
	case i.Port <= 0 || i.Port > 65535:
		return fmt.Sprintf("port %d", i.Port)
	case !validToken(i.Token):
		return "the token is empty or not printable ASCII"
	}
	return ""
}

// validToken: a non-empty run of printable ASCII without spaces, as padd
// mints them ("padd_" and hex).
func validToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] > '~' {
			return false
		}
	}
	return true
}

// WriteFileAtomic writes data to path with mode 0600 through a temporary
// file and a rename, so readers never see half a file.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
