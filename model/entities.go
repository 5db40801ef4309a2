package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Actor says who made a change: the local user or a named agent, and
// through which door.
type Actor struct {
	Kind     string `json:"kind"`             // ActorUser or ActorAgent
	Name     string `json:"name,omitempty"`   // agent name (clientInfo.name, X-Pad-Agent) or user name
	Source   string `json:"source,omitempty"` // cli, mcp, api, web, sync
	WorkerID string `json:"worker_id,omitempty"`
}

// Actor kinds.
const (
	ActorUser  = "user"
	ActorAgent = "agent"
)

// LocalUserName is the one human of a padd instance.
const LocalUserName = "Local User"

// UserActor is the local human acting through a door.
func UserActor(source string) Actor {
	return Actor{Kind: ActorUser, Name: LocalUserName, Source: source}
}

// Workspace is a Pad workspace.
type Workspace struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Slug        string     `json:"slug"`
	Description string     `json:"description,omitempty"`
	Template    string     `json:"template,omitempty"`
	SortOrder   int        `json:"sort_order"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	DeletedAt   *time.Time `json:"deleted_at,omitempty"`
	Seq         int64      `json:"seq"`
	// ReportLayout is the report page's saved layout, nil until saved.
	ReportLayout *ReportLayout `json:"report_layout,omitempty"`
	// Context is what `pad workspace context set` keeps (model/wscontext.go);
	// nil until one is set.
	Context *WorkspaceContext `json:"context,omitempty"`
}

// Collection is a typed collection of items.
type Collection struct {
	ID             string     `json:"id"`
	WorkspaceID    string     `json:"workspace_id"`
	Name           string     `json:"name"`
	Slug           string     `json:"slug"`
	Prefix         string     `json:"prefix"`
	FormerPrefixes []string   `json:"former_prefixes,omitempty"`
	Icon           string     `json:"icon,omitempty"`
	Description    string     `json:"description,omitempty"`
	Schema         Schema     `json:"schema"`
	Settings       Settings   `json:"settings"`
	IsSystem       bool       `json:"is_system,omitempty"`
	IsDefault      bool       `json:"is_default,omitempty"`
	SortOrder      int        `json:"sort_order"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	ArchivedAt     *time.Time `json:"archived_at,omitempty"`
	Seq            int64      `json:"seq"`
}

// TracksWork reports whether the collection's items count as open work.
func (c *Collection) TracksWork() bool { return c.Settings.IsWork() }

// State derives an item's state from this collection's schema.
func (c *Collection) State(fields map[string]any) State {
	return StateOf(c.Schema, c.Settings, fields)
}

// Item is one item of a collection.
type Item struct {
	ID             string         `json:"id,omitempty"`
	WorkspaceID    string         `json:"workspace_id,omitempty"`
	CollectionID   string         `json:"collection_id"`
	Number         int64          `json:"number"`
	Title          string         `json:"title"`
	Slug           string         `json:"slug"`
	Content        string         `json:"content,omitempty"`
	Fields         map[string]any `json:"fields,omitempty"`
	Tags           []string       `json:"tags,omitempty"`
	Pinned         bool           `json:"pinned,omitempty"`
	SortOrder      int64          `json:"sort_order,omitempty"`
	ParentID       string         `json:"parent_id,omitempty"`
	AssignedUserID string         `json:"assigned_user_id,omitempty"`
	AgentRoleID    string         `json:"agent_role_id,omitempty"`
	RoleSortOrder  int64          `json:"role_sort_order,omitempty"`
	CreatedBy      Actor          `json:"created_by"`
	LastModifiedBy Actor          `json:"last_modified_by"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	DeletedAt      *time.Time     `json:"deleted_at,omitempty"`
	Seq            int64          `json:"seq"`
}

// Comment is a comment or a reply on an item.
type Comment struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspace_id"`
	ItemID      string     `json:"item_id"`
	ParentID    string     `json:"parent_id,omitempty"`
	Body        string     `json:"body"`
	Author      Actor      `json:"author"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	DeletedAt   *time.Time `json:"deleted_at,omitempty"` // a tombstone kept while replies exist
	Seq         int64      `json:"seq"`
	// Reactions are the comment's emoji reactions, oldest first: at most
	// one per person and emoji (storage/reactions.go).
	Reactions []Reaction `json:"reactions,omitempty"`
	// ReactionsGone are emoji this padd's person took back here while
	// the linked remote still has them: sync removes them there, then
	// forgets them (syncer/reactions.go).
	ReactionsGone []string `json:"reactions_gone,omitempty"`
}

// Reaction is one emoji reaction on a comment. UserID is "" for this
// padd's person (whoever made it here, or made it on the remote as the
// user padd syncs as); a reaction someone else made on the remote keeps
// their remote user id, and their name in Actor.
type Reaction struct {
	ID        string    `json:"id"`
	Emoji     string    `json:"emoji"`
	UserID    string    `json:"user_id,omitempty"`
	Actor     Actor     `json:"actor"`
	CreatedAt time.Time `json:"created_at"`
	// Synced says the linked remote has the reaction (it was pulled
	// from there, or pushed and answered): one that is not, sync leaves
	// in place when the remote does not list it.
	Synced bool `json:"synced,omitempty"`
}

// Link types between items. Related is Pad's default (a link made with no
// type); wiki-link is what Pad calls a [[reference]] kept as a link.
const (
	LinkBlocks     = "blocks"
	LinkBlockedBy  = "blocked-by"
	LinkSupersedes = "supersedes"
	LinkImplements = "implements"
	LinkSplitFrom  = "split-from"
	LinkRelated    = "related"
	LinkWikiLink   = "wiki-link"
)

// LinkTypes lists the link types a caller may name.
var LinkTypes = []string{LinkBlocks, LinkBlockedBy, LinkSupersedes, LinkImplements, LinkSplitFrom, LinkRelated, LinkWikiLink}

// LinkParent is Pad's hierarchy link: padd holds it as the child's
// parent, never as a link.
const LinkParent = "parent"

// NormalizeLinkType reads a link type in any of Pad's spellings
// (split_from, SPLIT-FROM, wiki_link) as the model's hyphenated name;
// an empty type is Pad's default, related.
func NormalizeLinkType(raw string) string {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(raw)), "_", "-")
	if t == "" {
		return LinkRelated
	}
	return t
}

// MaxLinkTypeLen bounds the name of a link type padd keeps without
// knowing it (ForeignLinkType).
const MaxLinkTypeLen = 40

// ForeignLinkType says whether t (normalized) is a link type a newer Pad
// may hold and padd does not know: a short lower-case name. Such a link
// is kept as it came, from a remote or a bundle, and travels back; a
// caller of padd's own API still names a type of LinkTypes.
func ForeignLinkType(t string) bool {
	if t == "" || len(t) > MaxLinkTypeLen || t == LinkParent || t == "plan" {
		return false
	}
	for i, r := range t {
		switch {
		case r >= 'a' && r <= 'z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-'):
		default:
			return false
		}
	}
	_, _, _, known := CanonicalLink("", "", t)
	return !known
}

// The names of a stored link type as its target sees it.
var inverseLinkTypes = map[string]string{
	LinkBlocks:     LinkBlockedBy,
	LinkSupersedes: "superseded-by",
	LinkImplements: "implemented-by",
	LinkSplitFrom:  "split-into",
	LinkRelated:    LinkRelated,
	LinkWikiLink:   "referenced-by",
}

// InverseLinkType names stored type t as the link's target sees it
// ("B blocks A" reads "blocked-by" from A). A type padd keeps without
// knowing it (ForeignLinkType) reads the same from both ends, as related
// does and as Pad's CLI shows it.
func InverseLinkType(t string) string {
	if inv, ok := inverseLinkTypes[t]; ok {
		return inv
	}
	return t
}

// CanonicalLink stores "A blocked-by B" as "B blocks A", so each
// relationship has one stored form.
func CanonicalLink(source, target, typ string) (string, string, string, bool) {
	switch typ {
	case LinkBlockedBy:
		return target, source, LinkBlocks, true
	case LinkBlocks, LinkSupersedes, LinkImplements, LinkSplitFrom, LinkRelated, LinkWikiLink:
		return source, target, typ, true
	}
	return "", "", "", false
}

// Link is a typed edge between two items, in its stored form.
type Link struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	SourceID    string    `json:"source_id"`
	TargetID    string    `json:"target_id"`
	Type        string    `json:"type"`
	CreatedBy   Actor     `json:"created_by"`
	CreatedAt   time.Time `json:"created_at"`
	Seq         int64     `json:"seq"`
}

// Role is an agent role (Planner, Implementer, ...).
type Role struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Icon        string    `json:"icon,omitempty"`
	Description string    `json:"description,omitempty"`
	Tools       string    `json:"tools,omitempty"`
	SortOrder   int       `json:"sort_order"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Seq         int64     `json:"seq"`
}

// Activity is one entry of a workspace's activity feed.
type Activity struct {
	ID          string         `json:"id,omitempty"`
	WorkspaceID string         `json:"workspace_id,omitempty"`
	ItemID      string         `json:"item_id,omitempty"`
	Action      string         `json:"action"`
	Actor       Actor          `json:"actor"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
	Seq         int64          `json:"seq"`
}

// Version is one point in an item's content history: the body as it
// stood after the change.
type Version struct {
	ID         string `json:"id"`
	ItemID     string `json:"item_id"`
	VersionSeq int64  `json:"version_seq"`
	Title      string `json:"title"`
	Content    string `json:"content,omitempty"`
	// Current marks the newest version, whose body is the item's
	// current content and is not stored twice.
	Current      bool      `json:"current,omitempty"`
	Summary      string    `json:"change_summary,omitempty"`
	Actor        Actor     `json:"actor"`
	IsCreate     bool      `json:"is_create,omitempty"`
	LinesAdded   int       `json:"lines_added"`
	LinesRemoved int       `json:"lines_removed"`
	CreatedAt    time.Time `json:"created_at"`
	Seq          int64     `json:"seq"`
}

// Change is one entry of a workspace's change log, keyed by seq: what
// changed, not its new state (readers load the entity).
type Change struct {
	Seq          int64     `json:"seq"`
	Entity       string    `json:"entity"` // one of the Entity* constants
	Op           string    `json:"op"`     // one of the Op* constants
	ID           string    `json:"id"`     // the changed entity's id
	ItemID       string    `json:"item_id,omitempty"`
	CollectionID string    `json:"collection_id,omitempty"`
	Actor        Actor     `json:"actor"`
	At           time.Time `json:"at"`
}

// Change-log entities.
const (
	EntityWorkspace  = "workspace"
	EntityCollection = "collection"
	EntityItem       = "item"
	EntityComment    = "comment"
	EntityLink       = "link"
	EntityRole       = "role"
	EntityStar       = "star"
	EntityAttachment = "attachment"
	EntityReaction   = "reaction" // its change's ID is the comment's
	EntitySavedView  = "saved_view"
)

// Change-log operations.
const (
	OpCreated  = "created"
	OpUpdated  = "updated"
	OpDeleted  = "deleted"
	OpRestored = "restored"
	OpMoved    = "moved"
	OpArchived = "archived"
)

// Truncate1s gives a timestamp Pad's resolution: UTC, whole seconds.
func Truncate1s(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// Sources (the door a change came through).
const (
	SourceCLI  = "cli"
	SourceMCP  = "mcp"
	SourceAPI  = "api"
	SourceSync = "sync"
)

// UnmarshalJSON keeps field numbers exact (json.Number), so a value
// beyond 2^53 survives a round trip through storage or the wire.
func (it *Item) UnmarshalJSON(b []byte) error {
	type plain Item
	aux := struct {
		*plain
		Fields json.RawMessage `json:"fields,omitempty"`
	}{plain: (*plain)(it)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	it.Fields = nil
	if len(aux.Fields) > 0 && string(aux.Fields) != "null" {
		v, err := DecodeJSON(aux.Fields)
		if err != nil {
			return err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("item fields must be a JSON object")
		}
		it.Fields = m
	}
	return nil
}
