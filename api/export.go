package api

// Pad's portable workspace (pad-inventory IMP-01, IMP-04): the JSON
// export `pad-export.json`, version 1, and the tar.gz bundle that holds
// it with `attachments/manifest.json` and the blobs. Members marked
// "padd's" are additive: Pad reads past them, padd reads them back so a
// padd → padd round trip keeps what Pad's format has no place for.

// ExportVersion is the WorkspaceExport version padd writes and reads.
const ExportVersion = 1

// Bundle entry names and the manifest's version.
const (
	BundleExportEntry   = "pad-export.json"
	BundleManifestEntry = "attachments/manifest.json"
	BundleManifestVer   = 1
)

// Content types of the two forms. An import whose Content-Type is one of
// BundleContentTypes is read as the bundle; anything else as the JSON.
const (
	BundleContentType = "application/gzip"
	ExportContentType = "application/json"
)

// BundleContentTypes are the Content-Types Pad's import reads as a bundle.
var BundleContentTypes = []string{"application/gzip", "application/x-gzip", "application/x-tar"}

// BundleStatusTrailer is the trailer a bundle export ends with: "ok" once
// every entry was written. A bundle without it was cut short.
const (
	BundleStatusTrailer = "X-Bundle-Status"
	BundleStatusOK      = "ok"
)

// WorkspaceExport is pad-export.json.
type WorkspaceExport struct {
	Version      int                 `json:"version"`
	ExportedAt   string              `json:"exported_at"`
	Workspace    WorkspaceExportMeta `json:"workspace"`
	Collections  []CollectionExport  `json:"collections"`
	Items        []ItemExport        `json:"items"`
	Comments     []CommentExport     `json:"comments,omitempty"`
	ItemLinks    []ItemLinkExport    `json:"item_links,omitempty"`
	ItemVersions []ItemVersionExport `json:"item_versions,omitempty"`
	// Roles are padd's: the workspace's agent roles.
	Roles []RoleExport `json:"roles,omitempty"`
	// SavedViews are padd's: its collections' saved views.
	SavedViews []SavedViewExport `json:"saved_views,omitempty"`
}

// WorkspaceExportMeta is the workspace itself.
type WorkspaceExportMeta struct {
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
	Settings    string `json:"settings"`
	// Template is padd's: the template the workspace was made from.
	Template string `json:"template,omitempty"`
	// ReportLayout is padd's: the report page's saved layout (Pad keeps
	// one per user and leaves it out of its export).
	ReportLayout *ReportLayout `json:"report_layout,omitempty"`
}

// CollectionExport is one collection; schema and settings are JSON text.
type CollectionExport struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Icon        string `json:"icon"`
	Description string `json:"description"`
	Schema      string `json:"schema"`
	Settings    string `json:"settings"`
	Traits      string `json:"traits,omitempty"`
	Prefix      string `json:"prefix"`
	SortOrder   int    `json:"sort_order"`
	IsDefault   bool   `json:"is_default"`
	IsSystem    bool   `json:"is_system"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	// ArchivedAt is padd's: an archived collection travels archived.
	ArchivedAt string `json:"archived_at,omitempty"`
	// FormerPrefixes is padd's: the prefixes the collection had before,
	// under which its old refs still resolve.
	FormerPrefixes []string `json:"former_prefixes,omitempty"`
}

// ItemExport is one live item; fields and tags are JSON text.
type ItemExport struct {
	ID             string `json:"id"`
	CollectionID   string `json:"collection_id"`
	Title          string `json:"title"`
	Slug           string `json:"slug"`
	Content        string `json:"content"`
	Fields         string `json:"fields"`
	Tags           string `json:"tags"`
	Pinned         bool   `json:"pinned"`
	SortOrder      int64  `json:"sort_order"`
	ParentID       string `json:"parent_id,omitempty"`
	CreatedBy      string `json:"created_by"`
	LastModifiedBy string `json:"last_modified_by"`
	Source         string `json:"source"`
	ItemNumber     int64  `json:"item_number"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	// Newer Pad's additive members; padd counts them as not modelled.
	CollabSetAside any `json:"collab_set_aside,omitempty"`
	BuiltinOrigin  any `json:"builtin_origin,omitempty"`
	// padd's: who by name, the agent role's slug, the assigned user.
	CreatedByName      string `json:"created_by_name,omitempty"`
	LastModifiedByName string `json:"last_modified_by_name,omitempty"`
	Role               string `json:"agent_role,omitempty"`
	AssignedUserID     string `json:"assigned_user_id,omitempty"`
	// padd's: the item's place on the roles board, and the entry of
	// padd's built-in library it was activated from (Pad's own
	// builtin_origin names Pad's library, whose versions are not padd's).
	RoleSortOrder int64                `json:"role_sort_order,omitempty"`
	LibraryOrigin *LibraryOriginExport `json:"library_origin,omitempty"`
}

// LibraryOriginExport is padd's: the library entry an item was
// activated from (its key) and the version activated (its hash).
type LibraryOriginExport struct {
	Key      string `json:"key"`
	SeedHash string `json:"seed_hash"`
}

// CommentExport is one live comment of a live item.
type CommentExport struct {
	ID        string `json:"id"`
	ItemID    string `json:"item_id"`
	Author    string `json:"author"`
	Body      string `json:"body"`
	CreatedBy string `json:"created_by"`
	Source    string `json:"source"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	// ParentID is padd's: the comment this one replies to.
	ParentID string `json:"parent_id,omitempty"`
	// Reactions are padd's (Pad's export carries none): the comment's
	// emoji reactions, oldest first.
	Reactions []ReactionExport `json:"reactions,omitempty"`
}

// ReactionExport is one reaction of an exported comment. UserID is the
// remote user's id of a reaction someone else made on a linked remote;
// none for this padd's person's.
type ReactionExport struct {
	Emoji     string `json:"emoji"`
	UserID    string `json:"user_id,omitempty"`
	Actor     string `json:"actor"`
	ActorName string `json:"actor_name,omitempty"`
	CreatedAt string `json:"created_at"`
}

// ItemLinkExport is one link between items.
type ItemLinkExport struct {
	ID        string `json:"id"`
	SourceID  string `json:"source_id"`
	TargetID  string `json:"target_id"`
	LinkType  string `json:"link_type"`
	CreatedBy string `json:"created_by"`
	CreatedAt string `json:"created_at"`
	// CreatedByName is padd's: an agent's name, or the user's.
	CreatedByName string `json:"created_by_name,omitempty"`
}

// ItemVersionExport is one version of an item's body.
type ItemVersionExport struct {
	ID            string `json:"id"`
	ItemID        string `json:"item_id"`
	Content       string `json:"content"`
	ChangeSummary string `json:"change_summary"`
	CreatedBy     string `json:"created_by"`
	Source        string `json:"source"`
	IsDiff        bool   `json:"is_diff"`
	CreatedAt     string `json:"created_at"`
	BodySHA256    string `json:"body_sha256,omitempty"`
	// Title is padd's: the item's title at that version.
	Title string `json:"title,omitempty"`
	// CreatedByName is padd's: an agent's name, or the user's.
	CreatedByName string `json:"created_by_name,omitempty"`
}

// RoleExport is padd's: one agent role.
type RoleExport struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Icon        string `json:"icon,omitempty"`
	Description string `json:"description,omitempty"`
	Tools       string `json:"tools,omitempty"`
	SortOrder   int    `json:"sort_order"`
}

// AttachmentManifest is attachments/manifest.json.
type AttachmentManifest struct {
	Version int                       `json:"version"`
	Entries []AttachmentManifestEntry `json:"entries"`
}

// AttachmentManifestEntry is one blob of a bundle.
type AttachmentManifestEntry struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	MIME        string `json:"mime"`
	SizeBytes   int64  `json:"size_bytes"`
	ContentHash string `json:"content_hash"`
	Width       *int   `json:"width,omitempty"`
	Height      *int   `json:"height,omitempty"`
	ItemID      string `json:"item_id,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Variant     string `json:"variant,omitempty"`
	UploadedBy  string `json:"uploaded_by"`
	CreatedAt   string `json:"created_at"`
	// UploadedByName is padd's: an agent's name, or the user's.
	UploadedByName string `json:"uploaded_by_name,omitempty"`
}

// ImportCounts counts one side of an import.
type ImportCounts struct {
	Collections int `json:"collections"`
	Items       int `json:"items"`
	Comments    int `json:"comments"`
	Attachments int `json:"attachments"`
	// padd's: links, versions and roles.
	Links    int `json:"links"`
	Versions int `json:"versions"`
	Roles    int `json:"roles"`
}

// ImportSummary is what an import read and what it kept. NotModelled is
// padd's: what the export held that padd has no place for, by kind, each
// counted and left out (docs/BUNDLES.md lists the kinds).
type ImportSummary struct {
	InBundle    ImportCounts   `json:"in_bundle"`
	Imported    ImportCounts   `json:"imported"`
	NotModelled map[string]int `json:"not_modelled,omitempty"`
}

// ImportResult answers POST /workspaces/import: the new workspace and
// the summary.
type ImportResult struct {
	Workspace
	ImportSummary ImportSummary `json:"import_summary"`
}

// An import's answer headers (Pad's BUG-3658), sent on every successful
// import, 0 included: the relation default values dropped for naming an
// item the export does not hold, and the schema fields left out for
// repeating a key an earlier field of their collection has.
const (
	ImportDroppedRelationDefaultsHeader = "X-Pad-Import-Dropped-Relation-Defaults"
	ImportCollapsedDuplicateKeysHeader  = "X-Pad-Import-Collapsed-Duplicate-Keys"
)

// ImportKeyParam names an import attempt (POST /workspaces/import
// ?import_key=): 8 to 64 letters, digits and hyphens. While the attempt
// runs, another with its key is refused (409 import_key_in_use);
// GET /workspaces/import-status?key= says what became of it.
const ImportKeyParam = "import_key"

// The states of a keyed import (ImportStatus.Status).
const (
	ImportRunning    = "running"
	ImportComplete   = "complete"
	ImportNotCreated = "not_created"
)

// ImportStatus answers GET /workspaces/import-status?key= (Pad's
// IMP-02): what became of the keyed import. A workspace is named once
// the import is complete.
type ImportStatus struct {
	Key           string `json:"key"`
	Status        string `json:"status"`
	WorkspaceSlug string `json:"workspace_slug,omitempty"`
	WorkspaceName string `json:"workspace_name,omitempty"`
	OwnerUsername string `json:"owner_username,omitempty"`
}
