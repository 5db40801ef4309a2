package syncer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Creates whose answer was lost, on a server without idempotency keys:
// padd never sends one again blindly. Once the server has surely
// finished with it (the settle time), settleInFlight looks for what it
// made. Until then the push waits (the outbox goes in order), and the
// pull goes on, so that the team's work keeps arriving: a pull that
// meets the create's item adopts it, and one that meets an item that
// may be it stops there until the settle time rather than take it for
// another's. A lost comment holds back its item's comments, a lost
// upload the remote's attachments (holdForLost).

// lostCreate is what padd knows of an item create whose answer was
// lost, to tell the item it made on the remote from another's.
type lostCreate struct {
	f    *storage.SyncInFlight
	req  sentCreate // the request as it went
	kept bool       // false: a record from before requests were kept
	// title and fp are the title and fingerprint it was sent with; coll
	// is the local item's collection now.
	title, fp, coll string
}

// lostCreateOf reads what is known of in-flight item create f; nil when
// the local item is gone since.
func (w *worker) lostCreateOf(f *storage.SyncInFlight) (*lostCreate, error) {
	v, err := w.m.views.GetItem(w.wsID, f.LocalID)
	if model.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l := &lostCreate{f: f, title: f.Title, fp: f.Fingerprint, coll: v.Collection.Slug}
	l.req, l.kept = sentRequest(f)
	if l.title == "" && l.fp == "" { // a record from before padd kept them
		l.title, l.fp = v.Title, fingerprint(v.Content, v.Tags)
	}
	return l, nil
}

// madeSince says an item made at created may be the create.
func (l *lostCreate) madeSince(created time.Time) bool { return madeSince(l.f, created) }

// madeSince says an entity the server made at created (its clock; zero:
// unknown) may be what in-flight create f made: not made before f was
// sent. Both times are the server's where padd knows the server's clock
// at the send (ServerSentAt); a record from before that compares with
// padd's clock, with createdSlack for the two clocks' difference.
func madeSince(f *storage.SyncInFlight, created time.Time) bool {
	if created.IsZero() {
		return true
	}
	if !f.ServerSentAt.IsZero() {
		return !created.Before(f.ServerSentAt.Add(-serverSlack))
	}
	return !created.Before(f.SentAt.Add(-createdSlack))
}

// anotherUsers says a comment (or reply) the remote holds was written by
// another user than the one padd writes as: never padd's.
func anotherUsers(f *storage.SyncInFlight, userID string) bool {
	return f.RemoteUser != "" && userID != "" && userID != f.RemoteUser
}

// rank says whether remote item it (decoded: rem), which padd has not
// mapped, may be the item the create made, and how surely: 0 it has the
// title it was sent with, or its content and tags (someone may have
// edited the other meanwhile; content alone is too common a match when
// it is empty), in the collection it was sent to or the local item's
// now (moved here meanwhile); 1 the same, moved there; 2 it keeps most
// of the lines it was sent with (someone may have edited the title and
// a line), in the collection; 3 the same, moved there.
func (l *lostCreate) rank(it *api.Item, rem *remoteItem) (int, bool) {
	if !l.madeSince(it.CreatedAt) {
		return 0, false
	}
	var sent string
	if l.req.Item != nil {
		sent = l.req.Item.Content
	}
	rank := 0
	switch {
	case it.Title == l.title || rem.side.Content != "" && fingerprint(rem.side.Content, rem.side.Tags) == l.fp:
	case mostLines(sent, rem.side.Content):
		rank = 2
	default:
		return 0, false
	}
	if slug := it.CollectionSlug; slug != "" && slug != l.coll && slug != l.req.Coll {
		rank++
	}
	return rank, true
}

// adoptLost records remote item rem (mapped) as the one lost create l
// made. What was sent is the base it is merged on: an edit made there
// since is the remote's, to keep (a record from before requests were
// kept has only what is found).
func (w *worker) adoptLost(l *lostCreate, rem *remoteItem) error {
	sent := &rem.side
	if l.kept && l.req.Side != nil {
		sent = l.req.Side
	}
	return w.adopt(l.f.LocalID, sent, rem, l.f.OutboxSeq)
}

// findCreatedItem looks for the item lost create l made among the items
// changed on the remote since the cursor before it was sent: the best
// rank (lostCreate.rank); several alike, the oldest (creates are sent
// in the order they were made here).
func (w *worker) findCreatedItem(ctx context.Context, c *remote.Client, link *storage.RemoteLink, l *lostCreate) (*api.Item, error) {
	var best [4]*api.Item // the first (oldest) match of each rank
	since := remote.Seq(l.f.CursorBefore)
	for {
		page, err := c.ItemsChanges(ctx, link.RemoteWorkspaceID, since, feedPage)
		if err != nil {
			return nil, err
		}
		for i := range page.Changes {
			row := &page.Changes[i]
			if !l.madeSince(row.CreatedAt) {
				continue
			}
			if _, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, row.ID); err != nil || ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			it, err := c.GetItem(ctx, link.RemoteWorkspaceID, row.ID)
			if err != nil {
				return nil, err
			}
			rem, err := w.decode(it)
			if err != nil {
				continue
			}
			rank, ok := l.rank(it, rem)
			if !ok {
				continue
			}
			if rank == 0 {
				return it, nil
			}
			if best[rank] == nil {
				best[rank] = it
			}
		}
		if len(page.Changes) < feedPage {
			for _, it := range best {
				if it != nil {
					return it, nil
				}
			}
			return nil, nil
		}
		since = page.Cursor
	}
}

// findCreatedComment looks for an in-flight comment among its item's
// comments on the remote: one padd has not mapped, with the body it was
// sent with (sent; it may have been edited here since), written by the
// user padd writes as, no earlier than it was sent (madeSince). A
// teammate's "LGTM" is never taken for padd's; one of the same user made
// in the same moment elsewhere may be, and is the one case padd cannot
// tell apart (docs/SYNC.md, "Lost answers"). One edited there before
// padd looks is not recognised and is sent again: a duplicate is better
// than a loss, and adopting another's would lose this one.
func (w *worker) findCreatedComment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, f *storage.SyncInFlight, sent string) (*api.Comment, error) {
	lc, err := w.m.views.GetComment(w.wsID, f.LocalID)
	if model.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rcs, err := c.ListComments(ctx, link.RemoteWorkspaceID, f.RemoteItem)
	if err != nil {
		return nil, err
	}
	if sent == "" {
		sent = w.outText(lc.Body) // a record from before requests were kept
	}
	for i := range rcs {
		if rcs[i].Body != sent || rcs[i].Deleted || anotherUsers(f, rcs[i].UserID) || !madeSince(f, rcs[i].CreatedAt) {
			continue
		}
		if _, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncComment, rcs[i].ID); err != nil {
			return nil, err
		} else if !ok {
			return &rcs[i], nil
		}
	}
	return nil, nil
}

// errLostCreateAhead stops a pull at a remote item that may be what a
// lost create made: it is read again once the create is settled.
var errLostCreateAhead = errors.New("the pull waits for a create whose answer was lost")

// held is what a pull must not take for another's while an in-flight
// create waits for its settle time: the item create (lost), the remote
// item whose comments are not read (commentsOf), or the remote's
// attachments (files: an upload). settled says the pull met the item
// create and adopted it: the push may go on.
type held struct {
	lost       *lostCreate
	commentsOf string
	files      bool
	settled    bool
}

// holdForLost says what a pull may do while the in-flight create f
// waits for its settle time: false when it must wait too (an item gone
// here since: the remote's copy would come back as new).
func (w *worker) holdForLost(f *storage.SyncInFlight) (held, bool, error) {
	switch f.Entity {
	case model.EntityItem:
		l, err := w.lostCreateOf(f)
		return held{lost: l}, l != nil, err
	case model.EntityComment:
		return held{commentsOf: f.RemoteItem}, f.RemoteItem != "", nil
	case model.EntityAttachment:
		return held{files: true}, true, nil
	}
	return held{}, false, nil
}

// metLost looks at remote item it (decoded and mapped: rem), met by a
// pull while a lost create waits (w.held.lost). An item padd has not
// mapped that surely is it (rank 0: the create landed) is adopted, as
// settleInFlight would; one that may be it stops the pull
// (errLostCreateAhead). It says whether it took the item.
func (w *worker) metLost(it *api.Item, rem *remoteItem) (bool, error) {
	l := w.held.lost
	if _, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, it.ID); err != nil || ok {
		return false, err
	}
	rank, ok := l.rank(it, rem)
	switch {
	case !ok:
		return false, nil
	case rank > 0:
		return false, errLostCreateAhead
	}
	if err := w.adoptLost(l, rem); err != nil {
		return false, err
	}
	w.held.lost, w.held.settled = nil, true
	return true, nil
}

// mostLines says text keeps more than half of sent's non-blank lines
// (sent has two or more): an item whose title and a line were edited
// since it was sent.
func mostLines(sent, text string) bool {
	var lines []string
	for l := range strings.Lines(sent) {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, "\n"))
		}
	}
	if len(lines) < 2 {
		return false
	}
	have := map[string]int{}
	for l := range strings.Lines(text) {
		have[strings.TrimRight(l, "\n")]++
	}
	kept := 0
	for _, l := range lines {
		if have[l] > 0 {
			have[l]--
			kept++
		}
	}
	return kept*2 > len(lines)
}

// createdSlack is how much earlier than padd's send time a created item
// may say it was made, in a record that compares the two clocks.
const createdSlack = 5 * time.Second

// serverSlack is how much earlier than the server's clock at the send
// (as padd estimates it, up to a second behind) a created entity may say
// it was made: Pad writes whole seconds.
const serverSlack = 2 * time.Second

// fingerprint is a hash of an item's content and tags (as a set).
func fingerprint(content string, tags []string) string {
	t := slices.Clone(tags)
	slices.Sort(t)
	h := sha256.New()
	io.WriteString(h, content)
	for _, x := range slices.Compact(t) {
		h.Write([]byte{0})
		io.WriteString(h, x)
	}
	return hex.EncodeToString(h.Sum(nil))
}
