package api

import "time"

// Mirror folders (docs/MIRROR.md): /padd/mirrors.

// MirrorSpec names a mirror: a workspace and an absolute directory.
type MirrorSpec struct {
	Workspace string `json:"workspace"`
	Dir       string `json:"dir"`
}

// Mirror is one mirror and its state.
type Mirror struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"` // slug
	Dir       string `json:"dir"`
	// State is "starting", "watching" or why the mirror is stopped.
	State string `json:"state"`
	// Files is how many items have a file; Cursor the workspace seq every
	// change up to has reached the files.
	Files  int   `json:"files"`
	Cursor int64 `json:"cursor"`
	// Errors are files not applied (left as the user wrote them), and why.
	Errors []MirrorFileError `json:"errors"`
	// Conflicts are the conflict copies written since padd started.
	Conflicts []string `json:"conflicts"`
}

// MirrorFileError is a file a mirror could not apply.
type MirrorFileError struct {
	Path  string    `json:"path"`
	Error string    `json:"error"`
	At    time.Time `json:"at"`
}

// Mirrors is the list answer.
type Mirrors struct {
	Mirrors []Mirror `json:"mirrors"`
}

// ConfigStatus is padd.toml's state (GET /padd/config).
type ConfigStatus struct {
	Path string `json:"path"`
	// Error says why the file on disk is not applied ("" when it is).
	Error string `json:"error,omitempty"`
	// RestartToApply names changed settings that apply only at start.
	RestartToApply []string `json:"restart_to_apply,omitempty"`
	// Unknown names keys this padd does not know.
	Unknown  []string       `json:"unknown,omitempty"`
	LoadedAt time.Time      `json:"loaded_at"`
	Settings map[string]any `json:"settings"`
}

// The events of /padd/mirrors/events (a server-sent stream): each mirror's
// state at connection, then what happens.
const (
	EventMirrorStatus    = "mirror_status"     // data: Mirror
	EventMirrorFileError = "mirror_file_error" // data: MirrorEvent
	EventMirrorConflict  = "mirror_conflict"   // data: MirrorEvent
	EventConfigError     = "config_error"      // data: ConfigStatus (Error says why)
	EventConfigReloaded  = "config_reloaded"   // data: ConfigStatus
)

// MirrorEvent is a file a mirror did not apply, or a conflict copy it kept.
type MirrorEvent struct {
	Mirror string `json:"mirror"` // id
	Dir    string `json:"dir"`
	Path   string `json:"path"`
	Error  string `json:"error,omitempty"`
	Copy   string `json:"copy,omitempty"`
}
