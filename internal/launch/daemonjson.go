// Package launch finds the running padd and starts one when none
// answers: the data directory, daemon.json (how padd announces its port
// and token), spawning padd detached, and telling a live pid from a dead
// or zombie one. padctl, `padd mcp-serve` and the tests use it; padd
// itself writes daemon.json with launch.Info.
package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

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
	// Launched says this connection started padd (not in the file).
	Launched bool `json:"-"`
	// DataDir is the data directory it was read from (not in the file).
	DataDir string `json:"-"`
}

// URL is the base URL of the running padd.
func (i *Info) URL() string { return "http://127.0.0.1:" + strconv.Itoa(i.Port) }

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
	i.DataDir = dir
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
