package records

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/padd/padd/model"
)

// Per-workspace sub-buckets, under ws/<workspace id>.
var (
	bCounters   = []byte("counters")
	bColls      = []byte("colls")
	bCollSlugs  = []byte("coll_slugs")
	bPrefixes   = []byte("prefixes")
	bItems      = []byte("items")
	bContent    = []byte("content")
	bNums       = []byte("nums")
	bRefs       = []byte("refs")
	bSlugs      = []byte("slugs")
	bIndex      = []byte("ix")
	bCounts     = []byte("counts")
	BChanges    = []byte("changes")
	bActivity   = []byte("activity")
	bActItem    = []byte("act_item")
	bVersions   = []byte("versions")
	bComments   = []byte("comments")
	bCommentIdx = []byte("comment_idx")
	bLinks      = []byte("links")
	bLinkSrc    = []byte("link_src")
	bLinkDst    = []byte("link_dst")
	bRoles      = []byte("roles")
	bRoleSlugs  = []byte("role_slugs")
	bStars      = []byte("stars")
	bStarOrder  = []byte("star_order")
	bIdem       = []byte("idem")
	BOutbox     = []byte("outbox")
	bUnique     = []byte("unique")
	bTitles     = []byte("titles")
	BPatches    = []byte("patches")        // patch id(16) -> patchRecord (storage/patch.go)
	BOrigins    = []byte("builtin_origin") // item id(16) -> builtinOrigin (storage/library.go)

	// Sync's durable state (synclink.go, syncids.go, syncbase.go,
	// syncstate.go, syncconflicts.go; kept by storage/syncstate).
	BSync          = []byte("sync")           // link record, cursors, in-flight record, conflict counters
	BSyncIDs       = []byte("sync_ids")       // kind | direction | id -> the other side's id
	BSyncBase      = []byte("sync_base")      // item id(16) -> base record
	BSyncConflicts = []byte("sync_conflicts") // conflict id(8) -> conflict record

	WSSubBuckets = [][]byte{bCounters, bColls, bCollSlugs, bPrefixes, bItems, bContent, bNums,
		bRefs, bSlugs, bIndex, bCounts, BChanges, bActivity, bActItem, bVersions, bComments,
		bCommentIdx, bLinks, bLinkSrc, bLinkDst, bRoles, bRoleSlugs, bStars, bStarOrder,
		bIdem, BOutbox, bUnique, bTitles, BPatches, BOrigins,
		BSums, BVCounts, BDue, BBlk, BLeases, BReminders, BRemItem, BRemFired, BSeen,
		BSync, BSyncIDs, BSyncBase, BSyncConflicts, BSavedViews}
)

// Counter keys.
var (
	KSeq        = []byte("seq")
	KItemNumber = []byte("item_number")
	KVersion    = []byte("version")
	KGlobal     = []byte("global")
)

func U64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

func GetU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func SeqKey(seq int64) []byte { return U64(uint64(seq)) }

// IDKey turns a UUID string into its 16-byte key; ok is false when s is
// not a UUID.
func IDKey(s string) ([]byte, bool) {
	u, err := uuid.Parse(s)
	if err != nil {
		return nil, false
	}
	return u[:], true
}

func MustID(s string) []byte {
	k, ok := IDKey(s)
	if !ok {
		panic("storage: not a uuid: " + s)
	}
	return k
}

func IDString(b []byte) string {
	var u uuid.UUID
	copy(u[:], b)
	return u.String()
}

// NewID mints a time-ordered UUID (v7) so keys sort by creation.
func NewID() string {
	u, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return u.String()
}

func Cat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Lstr is a length-prefixed string, so variable parts of a composite key
// never run into each other.
func Lstr(s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b := make([]byte, 2+len(s))
	binary.BigEndian.PutUint16(b, uint16(len(s)))
	copy(b[2:], s)
	return b
}

func Encode(v any) ([]byte, error) { return json.Marshal(v) }

func Decode(b []byte, v any) error { return json.Unmarshal(b, v) }

func Tstamp(t time.Time) time.Time { return model.Truncate1s(t) }

// Wsb is one workspace's buckets in a transaction. Each is opened on
// first use: a point read touches a handful of the workspace's dozens of
// buckets, and opening them all cost more than the read itself.
type Wsb struct {
	Root     *Bucket
	ID       string
	Writable bool
	open     struct {
		counters   *Bucket
		colls      *Bucket
		collSlugs  *Bucket
		prefixes   *Bucket
		items      *Bucket
		content    *Bucket
		nums       *Bucket
		refs       *Bucket
		slugs      *Bucket
		index      *Bucket
		counts     *Bucket
		changes    *Bucket
		activity   *Bucket
		actItem    *Bucket
		versions   *Bucket
		comments   *Bucket
		commentIdx *Bucket
		links      *Bucket
		linkSrc    *Bucket
		linkDst    *Bucket
		roles      *Bucket
		roleSlugs  *Bucket
		stars      *Bucket
		starOrder  *Bucket
		idem       *Bucket
		outbox     *Bucket
		unique     *Bucket
		titles     *Bucket
		sums       *Bucket
		vcounts    *Bucket
		due        *Bucket
		blk        *Bucket
		leases     *Bucket
		reminders  *Bucket
		remItem    *Bucket
		remFired   *Bucket
		seen       *Bucket
		sync       *Bucket
		syncIDs    *Bucket
		syncBase   *Bucket
		syncConfl  *Bucket
	}
	// held is what a bulk write has not yet written (held.go).
	held *held
	// Now is the transaction's clock reading: what a lease's liveness is
	// judged against when a read decorates an item.
	Now time.Time
	// stop ends a long read when its caller's context does (readctx.go);
	// nil in writes and short reads.
	stop *Stopper
}

func OpenWS(tx *Txn, wsID string) *Wsb {
	root := tx.Bucket(BWS).Bucket(MustID(wsID))
	if root == nil {
		return nil
	}
	return &Wsb{Root: root, ID: wsID, Writable: tx.Writable()}
}

// appendOrdered are the buckets whose keys arrive in order: time-ordered
// ids and seqs, and the list index, where a written item goes to the head
// of each of its streams (newest first) in id order within a second.
// Their pages split full instead of half full, for up to half the file
// and fewer pages (the list index's sizes are in docs/PERFORMANCE.md,
// "Why the code is as it is").
var appendOrdered = map[string]bool{string(bItems): true, string(bContent): true, string(bNums): true,
	string(BChanges): true, string(bActivity): true, string(bActItem): true, string(bVersions): true,
	string(BSums): true, string(bIndex): true}

// ReplayFill is appendOrdered's fill for the engine's replay of a log
// record, which knows its buckets by name only.
func ReplayFill(name []byte) float64 {
	if appendOrdered[string(name)] {
		return AppendFill
	}
	return 0
}

func (b *Wsb) lazy(slot **Bucket, name []byte) *Bucket {
	if *slot == nil {
		*slot = b.Root.Bucket(name)
		if *slot != nil && b.Writable && appendOrdered[string(name)] {
			(*slot).SetFillPercent(AppendFill)
		}
	}
	return *slot
}

func (b *Wsb) Counters() *Bucket { return b.lazy(&b.open.counters, bCounters) }

func (b *Wsb) Colls() *Bucket { return b.lazy(&b.open.colls, bColls) }

func (b *Wsb) CollSlugs() *Bucket { return b.lazy(&b.open.collSlugs, bCollSlugs) }

func (b *Wsb) Prefixes() *Bucket { return b.lazy(&b.open.prefixes, bPrefixes) }

func (b *Wsb) Items() *Bucket { return b.lazy(&b.open.items, bItems) }

func (b *Wsb) Content() *Bucket { return b.lazy(&b.open.content, bContent) }

func (b *Wsb) Nums() *Bucket { return b.lazy(&b.open.nums, bNums) }

func (b *Wsb) Refs() *Bucket { return b.lazy(&b.open.refs, bRefs) }

func (b *Wsb) Slugs() *Bucket { return b.lazy(&b.open.slugs, bSlugs) }

func (b *Wsb) Changes() *Bucket { return b.lazy(&b.open.changes, BChanges) }

func (b *Wsb) Activity() *Bucket { return b.lazy(&b.open.activity, bActivity) }

func (b *Wsb) ActItem() *Bucket { return b.lazy(&b.open.actItem, bActItem) }

func (b *Wsb) Versions() *Bucket { return b.lazy(&b.open.versions, bVersions) }

func (b *Wsb) Comments() *Bucket { return b.lazy(&b.open.comments, bComments) }

func (b *Wsb) CommentIdx() *Bucket { return b.lazy(&b.open.commentIdx, bCommentIdx) }

func (b *Wsb) Links() *Bucket { return b.lazy(&b.open.links, bLinks) }

func (b *Wsb) LinkSrc() *Bucket { return b.lazy(&b.open.linkSrc, bLinkSrc) }

func (b *Wsb) LinkDst() *Bucket { return b.lazy(&b.open.linkDst, bLinkDst) }

func (b *Wsb) Roles() *Bucket { return b.lazy(&b.open.roles, bRoles) }

func (b *Wsb) RoleSlugs() *Bucket { return b.lazy(&b.open.roleSlugs, bRoleSlugs) }

func (b *Wsb) Stars() *Bucket { return b.lazy(&b.open.stars, bStars) }

func (b *Wsb) StarOrder() *Bucket { return b.lazy(&b.open.starOrder, bStarOrder) }

func (b *Wsb) Idem() *Bucket { return b.lazy(&b.open.idem, bIdem) }

func (b *Wsb) Outbox() *Bucket { return b.lazy(&b.open.outbox, BOutbox) }

func (b *Wsb) Unique() *Bucket { return b.lazy(&b.open.unique, bUnique) }

func (b *Wsb) Titles() *Bucket { return b.lazy(&b.open.titles, bTitles) }

func (b *Wsb) Sums() *Bucket { return b.lazy(&b.open.sums, BSums) }

func (b *Wsb) Due() *Bucket { return b.lazy(&b.open.due, BDue) }

func (b *Wsb) Blk() *Bucket { return b.lazy(&b.open.blk, BBlk) }

func (b *Wsb) Leases() *Bucket { return b.lazy(&b.open.leases, BLeases) }

func (b *Wsb) Reminders() *Bucket { return b.lazy(&b.open.reminders, BReminders) }

func (b *Wsb) RemItem() *Bucket { return b.lazy(&b.open.remItem, BRemItem) }

func (b *Wsb) RemFired() *Bucket { return b.lazy(&b.open.remFired, BRemFired) }

func (b *Wsb) Seen() *Bucket { return b.lazy(&b.open.seen, BSeen) }

func (b *Wsb) Sync() *Bucket { return b.lazy(&b.open.sync, BSync) }

func (b *Wsb) SyncIDs() *Bucket { return b.lazy(&b.open.syncIDs, BSyncIDs) }

func (b *Wsb) SyncBase() *Bucket { return b.lazy(&b.open.syncBase, BSyncBase) }

func (b *Wsb) SyncConfl() *Bucket { return b.lazy(&b.open.syncConfl, BSyncConflicts) }

// AppendFill is the split fill of buckets written in key order.
const AppendFill = 0.95

func CreateWSBuckets(tx *Txn, wsID string) (*Wsb, error) {
	root, err := tx.Bucket(BWS).CreateBucket(MustID(wsID))
	if err != nil {
		return nil, err
	}
	for _, name := range WSSubBuckets {
		if _, err := root.CreateBucket(name); err != nil {
			return nil, err
		}
	}
	return OpenWS(tx, wsID), nil
}

func (b *Wsb) Counter(k []byte) int64 { return int64(GetU64(b.Counters().Get(k))) }

func (b *Wsb) Bump(k []byte) (int64, error) {
	n := b.Counter(k) + 1
	return n, b.Counters().Put(k, U64(uint64(n)))
}
