package tray

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
)

// prefsFile is the tray's own state in padd's data directory: the
// workspace chosen last and the reminders already shown.
const prefsFile = "padtray.json"

// maxNotified bounds the reminders remembered as shown (the oldest go).
const maxNotified = 1000

type prefs struct {
	Workspace string `json:"workspace,omitempty"`
	// Notified are "workspace/reminder id" of reminders shown, oldest first.
	Notified []string `json:"notified,omitempty"`
}

// loadPrefs reads the preferences; a missing or unreadable file is a
// fresh start.
func loadPrefs(path string) prefs {
	var p prefs
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &p)
	}
	return p
}

func (p prefs) save(path string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// A temporary file and a rename: a reader sees the old or the new.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+prefsFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (p *prefs) notified(key string) bool { return slices.Contains(p.Notified, key) }

func (p *prefs) markNotified(key string) {
	p.Notified = append(p.Notified, key)
	if n := len(p.Notified) - maxNotified; n > 0 {
		p.Notified = append([]string(nil), p.Notified[n:]...)
	}
}

func (p prefs) clone() prefs {
	p.Notified = slices.Clone(p.Notified)
	return p
}
