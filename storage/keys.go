package storage

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/padd/padd/model"
	bolt "go.etcd.io/bbolt"
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

	wsSubBuckets = [][]byte{bCounters, bColls, bCollSlugs, bPrefixes, bItems, bContent, bNums,
		bRefs, bSlugs, bIndex, bCounts, bChanges, bActivity, bActItem, bVersions, bComments,
		bCommentIdx, bLinks, bLinkSrc, bLinkDst, bRoles, bRoleSlugs, bStars, bStarOrder,
		bIdem, bOutbox, bUnique, bTitles, bPatches, bOrigins,
		bSums, bVCounts, bDue, bBlk, bLeases, bReminders, bRemItem, bRemFired, bSeen}
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

// wsb holds one workspace's buckets for a transaction.
type wsb struct {
	root                                      *bolt.Bucket
	id                                        string
	counters, colls, collSlugs, prefixes      *bolt.Bucket
	items, content, nums, refs, slugs         *bolt.Bucket
	index, counts, changes, activity, actItem *bolt.Bucket
	versions, comments, commentIdx            *bolt.Bucket
	links, linkSrc, linkDst, roles, roleSlugs *bolt.Bucket
	stars, starOrder, idem, outbox, unique    *bolt.Bucket
	titles                                    *bolt.Bucket
	viewBuckets                               // leases, reminders, the project views' records (viewdata.go)
	// now is the transaction's clock reading: what a lease's liveness is
	// judged against when a read decorates an item.
	now time.Time
}

func openWS(tx *bolt.Tx, wsID string) *wsb {
	root := tx.Bucket(bWS).Bucket(mustID(wsID))
	if root == nil {
		return nil
	}
	b := &wsb{root: root, id: wsID}
	b.counters = root.Bucket(bCounters)
	b.colls = root.Bucket(bColls)
	b.collSlugs = root.Bucket(bCollSlugs)
	b.prefixes = root.Bucket(bPrefixes)
	b.items = root.Bucket(bItems)
	b.content = root.Bucket(bContent)
	b.nums = root.Bucket(bNums)
	b.refs = root.Bucket(bRefs)
	b.slugs = root.Bucket(bSlugs)
	b.index = root.Bucket(bIndex)
	b.counts = root.Bucket(bCounts)
	b.changes = root.Bucket(bChanges)
	b.activity = root.Bucket(bActivity)
	b.actItem = root.Bucket(bActItem)
	b.versions = root.Bucket(bVersions)
	b.comments = root.Bucket(bComments)
	b.commentIdx = root.Bucket(bCommentIdx)
	b.links = root.Bucket(bLinks)
	b.linkSrc = root.Bucket(bLinkSrc)
	b.linkDst = root.Bucket(bLinkDst)
	b.roles = root.Bucket(bRoles)
	b.roleSlugs = root.Bucket(bRoleSlugs)
	b.stars = root.Bucket(bStars)
	b.starOrder = root.Bucket(bStarOrder)
	b.idem = root.Bucket(bIdem)
	b.outbox = root.Bucket(bOutbox)
	b.unique = root.Bucket(bUnique)
	b.titles = root.Bucket(bTitles)
	b.viewBuckets = openViewBuckets(root, tx.Writable())
	if tx.Writable() {
		// These buckets' keys grow in order (time-ordered ids, seqs), so
		// pages split full instead of half full: half the file, fewer pages.
		for _, bk := range []*bolt.Bucket{b.items, b.content, b.nums, b.changes, b.activity, b.versions, b.actItem} {
			bk.FillPercent = appendFill
		}
	}
	return b
}

// appendFill is the split fill of buckets written in key order.
const appendFill = 0.95

func createWSBuckets(tx *bolt.Tx, wsID string) (*wsb, error) {
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

func (b *wsb) counter(k []byte) int64 { return int64(getU64(b.counters.Get(k))) }

func (b *wsb) bump(k []byte) (int64, error) {
	n := b.counter(k) + 1
	return n, b.counters.Put(k, u64(uint64(n)))
}
