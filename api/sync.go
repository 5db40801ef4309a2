package api

import (
	"encoding/json"
	"time"
)

// padd's sync with remote Pad servers, on its own API under /padd/sync
// (docs/SYNC.md). No answer here ever carries a remote token.

// Sync states, as SyncStatus.State says them.
const (
	SyncSynced       = "synced"        // nothing to push, pulled up to the remote's head
	SyncPushing      = "pushing"       // Pending changes on their way
	SyncPulling      = "pulling"       // reading the remote's changes (a clone too)
	SyncOffline      = "offline"       // the remote is unreachable: since OfflineSince, next try at NextTry
	SyncTokenRefused = "token_refused" // 401/403: stopped until the token is replaced
	SyncRemoteGone   = "remote_gone"   // the remote workspace is gone: stopped
	SyncPaused       = "paused"        // the user paused it
)

// SyncStatus is one linked workspace's sync, as `padctl sync status`
// shows it.
type SyncStatus struct {
	Workspace       string `json:"workspace"` // the local slug
	URL             string `json:"url"`
	RemoteWorkspace string `json:"remote_workspace"`
	State           string `json:"state"`
	// Pending counts the local changes not yet on the remote.
	Pending int `json:"pending"`
	// Conflicts and SetAside count open entries (see SyncConflict).
	Conflicts    int        `json:"conflicts"`
	SetAside     int        `json:"set_aside"`
	LastExchange *time.Time `json:"last_exchange,omitempty"`
	OfflineSince *time.Time `json:"offline_since,omitempty"`
	NextTry      *time.Time `json:"next_try,omitempty"`
	// LastError is the last failure, in words, with no secret in it.
	LastError string `json:"last_error,omitempty"`
	// Waiting says what the push waits for, in words, until NextTry (a
	// create whose answer was lost, looked for on the remote then).
	Waiting       string   `json:"waiting,omitempty"`
	RemoteVersion string   `json:"remote_version,omitempty"`
	Capabilities  []string `json:"capabilities,omitempty"`
	// Cloning is set until a clone's first pull has finished.
	Cloning bool `json:"cloning,omitempty"`
	// Live: the remote's event stream is connected and padd has caught
	// up since it connected, so remote changes arrive as they happen.
	Live bool `json:"live,omitempty"`
	// NotSynced names what padd keeps in the workspace that the link does
	// not carry either way: attachments, when the remote keeps none
	// (SyncNotCarried).
	NotSynced []string `json:"not_synced,omitempty"`
}

// SyncNotCarried is what a link to a remote without attachments (no
// attachment routes, or attachment storage turned off) does not carry:
// they stay on the side they were uploaded to (they travel in bundles).
var SyncNotCarried = []string{"attachments"}

// SyncStatuses answers GET /padd/sync.
type SyncStatuses struct {
	Workspaces []SyncStatus `json:"workspaces"`
}

// SyncToken says how the remote token is given: exactly one of the
// token itself (padctl read it from a file, the environment or a
// prompt) or nothing for a link whose token is already saved.
type SyncToken struct {
	Token string `json:"token,omitempty"`
	// InsecureHTTP allows plain http to a host that is not loopback.
	InsecureHTTP bool `json:"insecure_http,omitempty"`
}

// SyncClone asks POST /padd/sync/clone to make a local workspace from a
// remote one and keep it linked. The answer (202) is the new link's
// status with Cloning set; the events at /padd/sync/events follow it.
type SyncClone struct {
	URL             string `json:"url"`
	RemoteWorkspace string `json:"remote_workspace"`
	As              string `json:"as,omitempty"` // the local slug (default: the remote's)
	SyncToken
}

// SyncLink asks POST /padd/sync/link to link an existing local
// workspace to an empty remote one and push everything.
type SyncLink struct {
	Workspace       string `json:"workspace"`
	URL             string `json:"url"`
	RemoteWorkspace string `json:"remote_workspace"`
	SyncToken
}

// SyncConflict is one open (or settled) conflict or set-aside change.
// Kind is "conflict" (a part both sides changed differently: the remote's
// value is in the item, the local one is Local and the item's version
// LocalVersion) or "set_aside" (a change the other side refused, with
// Reason).
type SyncConflict struct {
	ID           int64           `json:"id"`
	Kind         string          `json:"kind"`
	Ref          string          `json:"ref,omitempty"`
	Title        string          `json:"title,omitempty"`
	Part         string          `json:"part,omitempty"`
	Base         json.RawMessage `json:"base,omitempty"`
	Local        json.RawMessage `json:"local,omitempty"`
	Remote       json.RawMessage `json:"remote,omitempty"`
	Truncated    []string        `json:"truncated,omitempty"`
	LocalVersion int64           `json:"local_version,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	At           time.Time       `json:"at"`
	State        string          `json:"state"`
	ResolvedAt   *time.Time      `json:"resolved_at,omitempty"`
}

// SyncConflicts answers GET /padd/sync/{ws}/conflicts.
type SyncConflicts struct {
	Conflicts []SyncConflict `json:"conflicts"`
}

// Ways to settle a conflict.
const (
	KeepLocal  = "local"  // the local value goes to the item and the remote
	KeepRemote = "remote" // the remote's value (already in the item) stays
	KeepMerged = "merged" // Value, edited by the user, goes to both
)

// SyncResolve asks POST /padd/sync/{ws}/resolve to settle the open
// conflicts of an item (ID 0: all of them; else that one).
type SyncResolve struct {
	Ref  string `json:"ref"`
	ID   int64  `json:"id,omitempty"`
	Keep string `json:"keep"`
	// Value is the merged value for KeepMerged: the text for title or
	// content, else the JSON of the part's value.
	Value json.RawMessage `json:"value,omitempty"`
}

// Events of the sync stream GET /padd/sync/events (server-sent events):
// "sync_status" with a SyncStatus each time a workspace's status
// changes (and one per linked workspace on connect), and
// "sync_conflict" with a SyncConflict when one is recorded.
const (
	EventSyncStatus   = "sync_status"
	EventSyncConflict = "sync_conflict"
)

// SyncEvent is one event of the sync stream, decoded: Name is
// EventSyncStatus (Status set) or EventSyncConflict (Conflict set).
type SyncEvent struct {
	Name     string
	Status   *SyncStatus
	Conflict *SyncConflict
}

// SyncVerify answers GET /padd/sync/{ws}/verify: the local workspace
// compared with the remote one, entity by entity (collections and their
// schemas, items with every part, comments with replies, links of every
// type, attachments by hash). Equal is true when nothing differs apart
// from what open conflicts and set-aside changes explain, and no local
// change waits to be pushed.
type SyncVerify struct {
	Workspace       string `json:"workspace"`
	URL             string `json:"url"`
	RemoteWorkspace string `json:"remote_workspace"`
	Equal           bool   `json:"equal"`
	// Pending counts the local changes not pushed yet: differences are
	// expected until they are.
	Pending int `json:"pending"`
	// Checked counts what was compared.
	Checked SyncVerifyCounts `json:"checked"`
	// Differences are what differs, each in words.
	Differences []SyncDifference `json:"differences"`
	// Conflicts are differences an open conflict or set-aside change
	// explains (`sync conflicts` shows them): they do not fail a verify.
	Conflicts []SyncDifference `json:"conflicts"`
	// Notes say what could not be compared, and why.
	Notes []string `json:"notes,omitempty"`
}

// SyncVerifyCounts counts the entities a verify compared, on both sides
// together (one entity on both sides counts once).
type SyncVerifyCounts struct {
	Collections int `json:"collections"`
	Items       int `json:"items"`
	Comments    int `json:"comments"`
	Links       int `json:"links"`
	Attachments int `json:"attachments"`
}

// Kinds of entity a SyncDifference is about.
const (
	VerifyCollection = "collection"
	VerifyItem       = "item"
	VerifyComment    = "comment"
	VerifyLink       = "link"
	VerifyAttachment = "attachment"
)

// SyncDifference is one difference between the local workspace and the
// remote one. Part says what differs ("only_here", "only_there", or a
// part of the entity: title, content, fields.<key>, tags, parent,
// collection, pinned, archived, schema, body, reply_to, deleted,
// hash, item); Local and Remote are the two values whole, as JSON, where
// the part has one on that side. Words says it as a sentence.
type SyncDifference struct {
	Kind   string          `json:"kind"`
	Ref    string          `json:"ref,omitempty"`
	Part   string          `json:"part"`
	Local  json.RawMessage `json:"local,omitempty"`
	Remote json.RawMessage `json:"remote,omitempty"`
	Words  string          `json:"words"`
}

// Parts of a SyncDifference about a whole entity.
const (
	PartOnlyHere  = "only_here"
	PartOnlyThere = "only_there"
)

// Events of a verify followed as a stream (GET .../verify with Accept:
// text/event-stream): "verify_progress" with a SyncVerifyProgress while
// it reads, then "verify" with the SyncVerify, or "error" with padd's
// error envelope.
const (
	EventVerifyProgress = "verify_progress"
	EventVerify         = "verify"
)

// SyncVerifyProgress says how far a verify has come: Done of Total items
// read on the remote.
type SyncVerifyProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}
