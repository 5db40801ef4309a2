package api

import (
	"encoding/json"
	"time"
)

// SeqHeader answers a write to a workspace with the workspace's seq
// after it: a search sent with min_seq at that seq sees the write.
const SeqHeader = "X-Padd-Seq"

// Item is Pad's item shape. Fields and Tags are JSON-encoded text.
type Item struct {
	ID               string            `json:"id"`
	WorkspaceID      string            `json:"workspace_id"`
	CollectionID     string            `json:"collection_id"`
	Title            string            `json:"title"`
	Slug             string            `json:"slug"`
	Ref              string            `json:"ref,omitempty"`
	Content          string            `json:"content"`
	Fields           string            `json:"fields"`
	Tags             string            `json:"tags"`
	Pinned           bool              `json:"pinned"`
	SortOrder        int64             `json:"sort_order"`
	ParentID         *string           `json:"parent_id,omitempty"`
	CreatedBy        string            `json:"created_by"`
	CreatedByName    string            `json:"created_by_name,omitempty"`
	LastModifiedBy   string            `json:"last_modified_by"`
	Source           string            `json:"source"`
	CreatedAt        time.Time         `json:"created_at"`
	UpdatedAt        time.Time         `json:"updated_at"`
	DeletedAt        *time.Time        `json:"deleted_at,omitempty"`
	AssignedUserID   *string           `json:"assigned_user_id,omitempty"`
	AgentRoleID      *string           `json:"agent_role_id,omitempty"`
	AgentRoleSlug    string            `json:"agent_role_slug,omitempty"`
	AgentRoleName    string            `json:"agent_role_name,omitempty"`
	AgentRoleIcon    string            `json:"agent_role_icon,omitempty"`
	RoleSortOrder    int64             `json:"role_sort_order"`
	ItemNumber       *int64            `json:"item_number,omitempty"`
	Seq              int64             `json:"seq"`
	CollectionSlug   string            `json:"collection_slug,omitempty"`
	CollectionName   string            `json:"collection_name,omitempty"`
	CollectionIcon   string            `json:"collection_icon,omitempty"`
	CollectionPrefix string            `json:"collection_prefix,omitempty"`
	ParentRef        string            `json:"parent_ref,omitempty"`
	ParentLinkID     string            `json:"parent_link_id,omitempty"` // Pad: the parent's id, from its parent link
	ParentTitle      string            `json:"parent_title,omitempty"`
	HasChildren      bool              `json:"has_children,omitempty"`
	RelationTargets  map[string]any    `json:"relation_targets,omitempty"`
	CodeContext      *CodeContext      `json:"code_context,omitempty"` // from the reserved github_pr
	Lease            *Lease            `json:"lease,omitempty"`
	Warnings         *Warnings         `json:"warnings,omitempty"`
	Appended         []map[string]any  `json:"appended,omitempty"`
	Extra            map[string]string `json:"-"`

	// The members Pad joins in or reads from the fields on every item
	// read, which its CLI prints from: the assignee's name and email
	// ("Assigned:"), and the convention metadata, implementation notes and
	// decision log (item show's sections of those names).
	AssignedUserName    string          `json:"assigned_user_name,omitempty"`
	AssignedUserEmail   string          `json:"assigned_user_email,omitempty"`
	Convention          *ItemConvention `json:"convention,omitempty"`
	ImplementationNotes []any           `json:"implementation_notes,omitempty"`
	DecisionLog         []any           `json:"decision_log,omitempty"`
}

// Lease is an item's live claim.
type Lease struct {
	Holder     string    `json:"holder"`
	Worker     string    `json:"worker,omitempty"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// Warnings is the additive write-warnings envelope.
type Warnings struct {
	UndeclaredFields      []string         `json:"undeclared_fields,omitempty"`
	DroppedFields         []string         `json:"dropped_fields,omitempty"`
	NotUnique             []map[string]any `json:"not_unique,omitempty"`
	UnguardedContentWrite bool             `json:"unguarded_content_write,omitempty"`
	Orphaned              []map[string]any `json:"orphaned,omitempty"`
}

// FieldMap decodes the item's fields, keeping numbers exact.
func (it *Item) FieldMap() (map[string]any, error) { return DecodeObject(it.Fields) }

// TagList decodes the item's tags.
func (it *Item) TagList() []string {
	var t []string
	_ = json.Unmarshal([]byte(it.Tags), &t)
	return t
}

// ItemWith is an item with the parts GET .../items/{ref}?include= asked
// for (padd's addition: an agent's get in one request).
type ItemWith struct {
	Item
	Comments *[]Comment  `json:"comments,omitempty"`
	Links    *[]ItemLink `json:"links,omitempty"`
}

// ItemCreate is the body of POST .../collections/{coll}/items.
type ItemCreate struct {
	Title            string   `json:"title"`
	Content          string   `json:"content,omitempty"`
	Fields           Flex     `json:"fields,omitempty"`
	Field            []string `json:"field,omitempty"`
	Tags             Flex     `json:"tags,omitempty"`
	Pinned           bool     `json:"pinned,omitempty"`
	ParentID         *string  `json:"parent_id,omitempty"`
	Parent           *string  `json:"parent,omitempty"`
	AssignedUserID   *string  `json:"assigned_user_id,omitempty"`
	AgentRoleID      *string  `json:"agent_role_id,omitempty"`
	Role             *string  `json:"role,omitempty"`
	SortOrder        *int64   `json:"sort_order,omitempty"`
	RefuseUndeclared bool     `json:"refuse_undeclared_fields,omitempty"`
	OpKey            string   `json:"op_key,omitempty"`
	CreatedBy        string   `json:"created_by,omitempty"`
	Source           string   `json:"source,omitempty"`
	// Convention is Pad's typed create member: a convention's metadata,
	// written as the reserved convention field and the ordinary keys kept
	// in step with it.
	Convention *ItemConvention `json:"convention,omitempty"`
}

// ItemConvention is a convention's metadata on the wire.
type ItemConvention struct {
	Category    string   `json:"category,omitempty"`
	Trigger     string   `json:"trigger,omitempty"`
	Surfaces    []string `json:"surfaces,omitempty"`
	Enforcement string   `json:"enforcement,omitempty"`
	Commands    []string `json:"commands,omitempty"`
}

// NoteEntry is an implementation-note append.
type NoteEntry struct {
	Summary string `json:"summary"`
	Details string `json:"details,omitempty"`
}

// DecisionEntry is a decision-log append.
type DecisionEntry struct {
	Decision  string `json:"decision"`
	Rationale string `json:"rationale,omitempty"`
}

// ItemUpdate is the body of PATCH .../items/{ref}.
type ItemUpdate struct {
	Title                    *string        `json:"title,omitempty"`
	Content                  *string        `json:"content,omitempty"`
	Fields                   Flex           `json:"fields,omitempty"`
	FieldsPatch              Flex           `json:"fields_patch,omitempty"`
	Field                    []string       `json:"field,omitempty"`
	Tags                     Flex           `json:"tags,omitempty"`
	Pinned                   *bool          `json:"pinned,omitempty"`
	SortOrder                *int64         `json:"sort_order,omitempty"`
	ParentID                 *string        `json:"parent_id,omitempty"`
	Parent                   *string        `json:"parent,omitempty"`
	ClearParent              bool           `json:"clear_parent,omitempty"`
	AssignedUserID           *string        `json:"assigned_user_id,omitempty"`
	AgentRoleID              *string        `json:"agent_role_id,omitempty"`
	Role                     *string        `json:"role,omitempty"`
	ClearAssignedUser        bool           `json:"clear_assigned_user,omitempty"`
	ClearAgentRole           bool           `json:"clear_agent_role,omitempty"`
	ExpectedSeq              *int64         `json:"expected_seq,omitempty"`
	ExpectedUpdatedAt        string         `json:"expected_updated_at,omitempty"`
	Replace                  bool           `json:"replace,omitempty"`
	Force                    bool           `json:"force,omitempty"`
	RefuseUndeclared         bool           `json:"refuse_undeclared_fields,omitempty"`
	OverwritePendingEdits    bool           `json:"overwrite_pending_edits,omitempty"`
	Comment                  *string        `json:"comment,omitempty"`
	ChangeSummary            string         `json:"change_summary,omitempty"`
	AppendImplementationNote *NoteEntry     `json:"append_implementation_note,omitempty"`
	AppendDecision           *DecisionEntry `json:"append_decision,omitempty"`
	// GitHubPR links the item to a pull request (its reserved github_pr)
	// and ClearGitHubPR removes the link (ITM-17). They exclude each
	// other and a full fields write.
	GitHubPR      *GitHubPR `json:"github_pr,omitempty"`
	ClearGitHubPR bool      `json:"clear_github_pr,omitempty"`
	Source        string    `json:"source,omitempty"`
	OpKey         string    `json:"op_key,omitempty"`
}

// GitHubPR is the pull request an item is linked to, as the caller
// supplies it (padd fetches nothing from GitHub): a positive number and
// an absolute http(s) url, the rest optional.
type GitHubPR struct {
	Number    int64  `json:"number"`
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	State     string `json:"state,omitempty"`
	Branch    string `json:"branch,omitempty"`
	Repo      string `json:"repo,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
}

// CodeContext is Pad's read of an item's github_pr: where its code
// lives and the pull request, when the item has a link.
type CodeContext struct {
	Provider    string       `json:"provider"`
	Repo        string       `json:"repo,omitempty"`
	Branch      string       `json:"branch,omitempty"`
	PullRequest *PullRequest `json:"pull_request,omitempty"`
}

// PullRequest is the pull request of a CodeContext.
type PullRequest struct {
	Number    int64  `json:"number"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	State     string `json:"state"`
	UpdatedAt string `json:"updated_at,omitempty"`
}

// ItemMove is the body of POST .../items/{ref}/move.
type ItemMove struct {
	TargetCollection string         `json:"target_collection"`
	FieldOverrides   map[string]any `json:"field_overrides,omitempty"`
	Fields           map[string]any `json:"fields,omitempty"`
	Field            []string       `json:"field,omitempty"`
	Force            bool           `json:"force,omitempty"`
}

// BulkRequest is the body of POST .../items/bulk.
type BulkRequest struct {
	IDs        []string       `json:"ids"`
	Op         string         `json:"op"`
	Status     string         `json:"status,omitempty"`
	Priority   string         `json:"priority,omitempty"`
	Collection string         `json:"collection,omitempty"`
	Tags       []string       `json:"tags,omitempty"`
	Role       string         `json:"role,omitempty"`
	Assign     string         `json:"assign,omitempty"`
	Fields     map[string]any `json:"fields,omitempty"`
}

// BulkRow is one item's outcome in a bulk answer.
type BulkRow struct {
	Ref     string `json:"ref"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// BulkResponse answers a bulk request.
type BulkResponse struct {
	Op      string    `json:"op"`
	Updated []BulkRow `json:"updated"`
	Failed  []BulkRow `json:"failed"`
	Total   int       `json:"total"`
}

// StarState answers the star routes: POST and DELETE carry the ref,
// GET only starred.
type StarState struct {
	Ref     string `json:"ref,omitempty"`
	Starred bool   `json:"starred"`
}

// Progress answers GET .../items/{ref}/progress. Pad sends total, done
// and percentage; open and abandoned are padd's split of the rest.
type Progress struct {
	Total      int `json:"total"`
	Done       int `json:"done"`
	Percentage int `json:"percentage"`
	Open       int `json:"open"`
	Abandoned  int `json:"abandoned"`
}
