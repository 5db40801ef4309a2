package storage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/storage/internal/records"
)

// workspaceBuckets says, for each bucket a workspace holds, whether an
// export carries what is in it ("exported: ..."), rebuilds it from what
// it carries ("derived: ..."), or leaves it out and why ("not exported:
// ..."). A bucket a new kind of thing brings fails
// TestEveryWorkspaceBucketIsExportedOrSaysWhy until it has a line here;
// an exported kind then needs a member in the export format and a value
// in daemon's round-trip fixture (fillEverything), which
// daemon/roundtrip_kinds_test.go holds.
var workspaceBuckets = map[string]string{
	"colls":          "exported: collections",
	"items":          "exported: items",
	"content":        "exported: items' bodies",
	"versions":       "exported: item_versions",
	"comments":       "exported: comments (live ones of live items)",
	"links":          "exported: item_links",
	"roles":          "exported: roles",
	"saved_views":    "exported: saved_views",
	"builtin_origin": "exported: items' library_origin",
	"attachments":    "exported: the bundle's manifest and blobs",
	"counters":       "derived: the item numbers and seqs an import writes",
	"coll_slugs":     "derived: from collections",
	"prefixes":       "derived: from collections' prefixes and former_prefixes",
	"nums":           "derived: from items' numbers",
	"refs":           "derived: from items' numbers and collections' prefixes",
	"slugs":          "derived: from items' slugs",
	"ix":             "derived: the list index, from items",
	"counts":         "derived: the list index's counts",
	"unique":         "derived: from items' values of unique fields",
	"titles":         "derived: from items' titles",
	"isum":           "derived: items' summaries",
	"vcounts":        "derived: versions' counts",
	"due":            "derived: from items' date fields",
	"blk":            "derived: the blocker index, from links",
	"comment_idx":    "derived: from comments",
	"link_src":       "derived: from links",
	"link_dst":       "derived: from links",
	"role_slugs":     "derived: from roles",
	"att_item":       "derived: from attachments' items",
	"changes":        "not exported: the change log is this padd's history of writes; an import starts one",
	"activity":       "not exported: the activity feed (docs/BUNDLES.md)",
	"act_item":       "not exported: the activity feed's per-item index",
	"stars":          "not exported: stars are the user's, not the workspace's (docs/BUNDLES.md)",
	"star_order":     "not exported: stars' order",
	"idem":           "not exported: idempotency records answer retries to this padd",
	"outbox":         "not exported: sync's queue of writes for the remote",
	"patches":        "not exported: a patch's undo record answers undo on this padd (Pad leaves item_patches out too)",
	"leases":         "not exported: a lease is an agent session's on this padd",
	"reminders":      "not exported: reminders (docs/BUNDLES.md)",
	"rem_item":       "not exported: reminders' per-item index",
	"rem_fired":      "not exported: reminders fired",
	"seen":           "not exported: what catch-up has shown",
	"sync":           "not exported: sync's link to a remote",
	"sync_ids":       "not exported: sync's id map",
	"sync_base":      "not exported: sync's merge bases",
	"sync_conflicts": "not exported: sync's conflicts",
}

// Every bucket of a workspace (those made with it and those made when
// first used) has a line in workspaceBuckets, and every line a bucket.
func TestEveryWorkspaceBucketIsExportedOrSaysWhy(t *testing.T) {
	s, _ := openTest(t)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	out, err := s.ImportWorkspace(context.Background(), ImportInput{Name: "Kinds",
		Collections: []ImportCollection{{Key: "c", Create: CollectionCreate{Name: "Tasks", Prefix: "TASK"}}},
		Source:      (&ImportEntities{Items: []ImportItem{{Key: "i", CollectionKey: "c", Title: "One", CreatedAt: at, UpdatedAt: at}}}).Source(),
		Attachments: []ImportAttachment{{Key: "a", ItemKey: "i", Filename: "f.txt", MIME: "text/plain", Size: 1,
			Hash: strings.Repeat("ab", 32), CreatedAt: at}},
	}, user)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, b := range records.WSSubBuckets {
		names[string(b)] = true
	}
	err = s.viewSettled(func(tx *records.Txn) error {
		return tx.Bucket(records.BWS).Bucket(records.MustID(out.Workspace.ID)).ForEachBucket(func(k []byte) error {
			names[string(k)] = true
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range names {
		why, ok := workspaceBuckets[name]
		switch {
		case !ok:
			t.Errorf("bucket %q: a new kind of thing in a workspace; say in workspaceBuckets whether an export carries it (then also in the export format and daemon's round-trip fixture) or why not", name)
		case !strings.HasPrefix(why, "exported: ") && !strings.HasPrefix(why, "derived: ") && !strings.HasPrefix(why, "not exported: "):
			t.Errorf("bucket %q: %q says neither exported, derived nor not exported", name, why)
		}
	}
	for name := range workspaceBuckets {
		if !names[name] {
			t.Errorf("workspaceBuckets names %q, which no workspace holds", name)
		}
	}
}
