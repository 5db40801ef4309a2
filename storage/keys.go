package storage

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/padd/padd/model"
)

// The top-level mirrors bucket is in storage/mirror.go.

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
	bChanges    = []byte("changes")
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
	bOutbox     = []byte("outbox")
	bUnique     = []byte("unique")
	bTitles     = []byte("titles")
	bPatches    = []byte("patches")        // patch id(16) -> patchRecord (storage/patch.go)
	bOrigins    = []byte("builtin_origin") // item id(16) -> builtinOrigin (storage/library.go)

	// Sync's durable state (storage/synclink.go, idmap.go, syncbase.go,
	// syncstate.go, syncconflicts.go).
	bSync          = []byte("sync")           // link record, cursors, in-flight record, conflict counters
	bSyncIDs       = []byte("sync_ids")       // kind | direction | id -> the other side's id
	bSyncBase      = []byte("sync_base")      // item id(16) -> base record
	bSyncConflicts = []byte("sync_conflicts") // conflict id(8) -> conflict record

	wsSubBuckets = [][]byte{bCounters, bColls, bCollSlugs, bPrefixes, bItems, bContent, bNums,
		bRefs, bSlugs, bIndex, bCounts, bChanges, bActivity, bActItem, bVersions, bComments,
		bCommentIdx, bLinks, bLinkSrc, bLinkDst, bRoles, bRoleSlugs, bStars, bStarOrder,
		bIdem, bOutbox, bUnique, bTitles, bPatches, bOrigins,
		bSums, bVCounts, bDue, bBlk, bLeases, bReminders, bRemItem, bRemFired, bSeen,
		bSync, bSyncIDs, bSyncBase, bSyncConflicts}
)

// Counter keys.
var (
	kSeq        = []byte("seq")
	kItemNumber = []byte("item_number")
	kVersion    = []byte("version")
	kGlobal     = []byte("global")
)

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func seqKey(seq int64) []byte { return u64(uint64(seq)) }

// idKey turns a UUID string into its 16-byte key; ok is false when s is
// not a UUID.
func idKey(s string) ([]byte, bool) {
	u, err := uuid.Parse(s)
	if err != nil {
		return nil, false
	}
	return u[:], true
}

func mustID(s string) []byte {
	k, ok := idKey(s)
	if !ok {
		panic("storage: not a uuid: " + s)
	}
	return k
}

func idString(b []byte) string {
	var u uuid.UUID
	copy(u[:], b)
	return u.String()
}

// newID mints a time-ordered UUID (v7) so keys sort by creation.
func newID() string {
	u, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return u.String()
}

func cat(parts ...[]byte) []byte {
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

// lstr is a length-prefixed string, so variable parts of a composite key
// never run into each other.
func lstr(s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b := make([]byte, 2+len(s))
	binary.BigEndian.PutUint16(b, uint16(len(s)))
	copy(b[2:], s)
	return b
}

func encode(v any) ([]byte, error) { return json.Marshal(v) }

func decode(b []byte, v any) error { return json.Unmarshal(b, v) }

func tstamp(t time.Time) time.Time { return model.Truncate1s(t) }

// wsb is one workspace's buckets in a transaction. Each is opened on
// first use: a point read touches a handful of the workspace's dozens of
// buckets, and opening them all cost more than the read itself.
type wsb struct {
	root     *bucket
	id       string
	writable bool
	open     struct {
		counters   *bucket
		colls      *bucket
		collSlugs  *bucket
		prefixes   *bucket
		items      *bucket
		content    *bucket
		nums       *bucket
		refs       *bucket
		slugs      *bucket
		index      *bucket
		counts     *bucket
		changes    *bucket
		activity   *bucket
		actItem    *bucket
		versions   *bucket
		comments   *bucket
		commentIdx *bucket
		links      *bucket
		linkSrc    *bucket
		linkDst    *bucket
		roles      *bucket
		roleSlugs  *bucket
		stars      *bucket
		starOrder  *bucket
		idem       *bucket
		outbox     *bucket
		unique     *bucket
		titles     *bucket
		sums       *bucket
		vcounts    *bucket
		due        *bucket
		blk        *bucket
		leases     *bucket
		reminders  *bucket
		remItem    *bucket
		remFired   *bucket
		seen       *bucket
		sync       *bucket
		syncIDs    *bucket
		syncBase   *bucket
		syncConfl  *bucket
	}
	// held is what a bulk write has not yet written (held.go).
	held *held
	// now is the transaction's clock reading: what a lease's liveness is
	// judged against when a read decorates an item.
	now time.Time
	// stop ends a long read when its caller's context does (readctx.go);
	// nil in writes and short reads.
	stop *stopper
}

func openWS(tx *txn, wsID string) *wsb {
	root := tx.Bucket(bWS).Bucket(mustID(wsID))
	if root == nil {
		return nil
	}
	return &wsb{root: root, id: wsID, writable: tx.Writable()}
}

// appendOrdered are the buckets whose keys arrive in order: time-ordered
// ids and seqs, and the list index, where a written item goes to the head
// of each of its streams (newest first) in id order within a second.
// Their pages split full instead of half full, for up to half the file
// and fewer pages (the list index's sizes are in docs/PERFORMANCE.md,
// "Why the code is as it is").
var appendOrdered = map[string]bool{string(bItems): true, string(bContent): true, string(bNums): true,
	string(bChanges): true, string(bActivity): true, string(bActItem): true, string(bVersions): true,
	string(bSums): true, string(bIndex): true}

// replayFill is appendOrdered's fill for the engine's replay of a log
// record, which knows its buckets by name only.
func replayFill(name []byte) float64 {
	if appendOrdered[string(name)] {
		return appendFill
	}
	return 0
}

func (b *wsb) lazy(slot **bucket, name []byte) *bucket {
	if *slot == nil {
		*slot = b.root.Bucket(name)
		if *slot != nil && b.writable && appendOrdered[string(name)] {
			(*slot).SetFillPercent(appendFill)
		}
	}
	return *slot
}

func (b *wsb) counters() *bucket   { return b.lazy(&b.open.counters, bCounters) }
func (b *wsb) colls() *bucket      { return b.lazy(&b.open.colls, bColls) }
func (b *wsb) collSlugs() *bucket  { return b.lazy(&b.open.collSlugs, bCollSlugs) }
func (b *wsb) prefixes() *bucket   { return b.lazy(&b.open.prefixes, bPrefixes) }
func (b *wsb) items() *bucket      { return b.lazy(&b.open.items, bItems) }
func (b *wsb) content() *bucket    { return b.lazy(&b.open.content, bContent) }
func (b *wsb) nums() *bucket       { return b.lazy(&b.open.nums, bNums) }
func (b *wsb) refs() *bucket       { return b.lazy(&b.open.refs, bRefs) }
func (b *wsb) slugs() *bucket      { return b.lazy(&b.open.slugs, bSlugs) }
func (b *wsb) changes() *bucket    { return b.lazy(&b.open.changes, bChanges) }
func (b *wsb) activity() *bucket   { return b.lazy(&b.open.activity, bActivity) }
func (b *wsb) actItem() *bucket    { return b.lazy(&b.open.actItem, bActItem) }
func (b *wsb) versions() *bucket   { return b.lazy(&b.open.versions, bVersions) }
func (b *wsb) comments() *bucket   { return b.lazy(&b.open.comments, bComments) }
func (b *wsb) commentIdx() *bucket { return b.lazy(&b.open.commentIdx, bCommentIdx) }
func (b *wsb) links() *bucket      { return b.lazy(&b.open.links, bLinks) }
func (b *wsb) linkSrc() *bucket    { return b.lazy(&b.open.linkSrc, bLinkSrc) }
func (b *wsb) linkDst() *bucket    { return b.lazy(&b.open.linkDst, bLinkDst) }
func (b *wsb) roles() *bucket      { return b.lazy(&b.open.roles, bRoles) }
func (b *wsb) roleSlugs() *bucket  { return b.lazy(&b.open.roleSlugs, bRoleSlugs) }
func (b *wsb) stars() *bucket      { return b.lazy(&b.open.stars, bStars) }
func (b *wsb) starOrder() *bucket  { return b.lazy(&b.open.starOrder, bStarOrder) }
func (b *wsb) idem() *bucket       { return b.lazy(&b.open.idem, bIdem) }
func (b *wsb) outbox() *bucket     { return b.lazy(&b.open.outbox, bOutbox) }
func (b *wsb) unique() *bucket     { return b.lazy(&b.open.unique, bUnique) }
func (b *wsb) titles() *bucket     { return b.lazy(&b.open.titles, bTitles) }
func (b *wsb) sums() *bucket       { return b.lazy(&b.open.sums, bSums) }
func (b *wsb) due() *bucket        { return b.lazy(&b.open.due, bDue) }
func (b *wsb) blk() *bucket        { return b.lazy(&b.open.blk, bBlk) }
func (b *wsb) leases() *bucket     { return b.lazy(&b.open.leases, bLeases) }
func (b *wsb) reminders() *bucket  { return b.lazy(&b.open.reminders, bReminders) }
func (b *wsb) remItem() *bucket    { return b.lazy(&b.open.remItem, bRemItem) }
func (b *wsb) remFired() *bucket   { return b.lazy(&b.open.remFired, bRemFired) }
func (b *wsb) seen() *bucket       { return b.lazy(&b.open.seen, bSeen) }
func (b *wsb) sync() *bucket       { return b.lazy(&b.open.sync, bSync) }
func (b *wsb) syncIDs() *bucket    { return b.lazy(&b.open.syncIDs, bSyncIDs) }
func (b *wsb) syncBase() *bucket   { return b.lazy(&b.open.syncBase, bSyncBase) }
func (b *wsb) syncConfl() *bucket  { return b.lazy(&b.open.syncConfl, bSyncConflicts) }

// appendFill is the split fill of buckets written in key order.
const appendFill = 0.95

func createWSBuckets(tx *txn, wsID string) (*wsb, error) {
	root, err := tx.Bucket(bWS).CreateBucket(mustID(wsID))
	if err != nil {
		return nil, err
	}
	for _, name := range wsSubBuckets {
		if _, err := root.CreateBucket(name); err != nil {
			return nil, err
		}
	}
	return openWS(tx, wsID), nil
}

func (b *wsb) counter(k []byte) int64 { return int64(getU64(b.counters().Get(k))) }

func (b *wsb) bump(k []byte) (int64, error) {
	n := b.counter(k) + 1
	return n, b.counters().Put(k, u64(uint64(n)))
}
