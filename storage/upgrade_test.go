package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/padd/padd/storage/internal/records"
)

// TestUpgradeAcrossEachLayoutKeepsEveryEntity writes workspaces,
// collections, items (with fields, tags, a parent), comments (with a
// reply) and links, takes the file back to each older layout (removing
// what the later layouts added, as the padd of that layout wrote it),
// and opens it as padd does after an upgrade: the migrations run, and
// every entity reads back as it was, through the same reads padd serves.
func TestUpgradeAcrossEachLayoutKeepsEveryEntity(t *testing.T) {
	for from := 1; from < SchemaVersion; from++ {
		t.Run(fmt.Sprintf("from layout %d", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "padd.db")
			s, err := Open(path, Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			var wsIDs []string
			for w := range 2 {
				ws := mustWorkspace(t, s, fmt.Sprintf("Upgrade %d", w))
				wsIDs = append(wsIDs, ws.ID)
				parent := mustCreate(t, s, ws.Slug, "plans", "Plan", map[string]any{"status": "active"})
				var refs []string
				for i := range 4 {
					r, err := s.CreateItem(ws.Slug, ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Task %d", i), Parent: parent.Ref,
						Tags: []string{"t" + fmt.Sprint(i%2)}, Fields: map[string]any{"status": []string{"open", "in-progress", "done", "open"}[i], "priority": "high"}}, user)
					if err != nil {
						t.Fatal(err)
					}
					refs = append(refs, r.Item.Ref)
				}
				mustCreate(t, s, ws.Slug, "ideas", "An idea", nil)
				c, err := s.AddComment(ws.Slug, refs[0], CommentCreate{Body: "first"}, user)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.AddComment(ws.Slug, refs[0], CommentCreate{Body: "reply", ReplyTo: c.Comment.ID}, user); err != nil {
					t.Fatal(err)
				}
				if _, err := s.AddLink(ws.Slug, refs[1], refs[2], "blocks", user); err != nil {
					t.Fatal(err)
				}
			}
			want := dumpEntities(t, s)
			if err := s.base.Update(func(tx *records.Txn) error { return takeBack(tx, wsIDs, from) }); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(path, Options{NoSync: true})
			if err != nil {
				t.Fatalf("open after the upgrade from layout %d: %v", from, err)
			}
			defer s.Close()
			got := dumpEntities(t, s)
			if len(got) != len(want) {
				t.Errorf("%d entities after the upgrade, want %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s after the upgrade from layout %d:\n%s\nwant\n%s", k, from, got[k], v)
				}
			}
			for _, id := range wsIDs {
				checkListIndex(t, s, id)
			}
			if err := s.Check(); err != nil {
				t.Errorf("consistency check: %v", err)
			}
		})
	}
}

// takeBack makes the file look as layout from wrote it: what each later
// layout added is removed and the version set.
func takeBack(tx *records.Txn, wsIDs []string, from int) error {
	for _, id := range wsIDs {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(id))
		var del [][]byte
		if from <= 5 { // layout 6 added the sync buckets
			del = append(del, records.BSync, records.BSyncIDs, records.BSyncBase, records.BSyncConflicts)
		}
		if from <= 2 { // layout 3 added the view records
			del = append(del, records.BSums, records.BVCounts, records.BDue, records.BBlk, records.BLeases, records.BReminders, records.BRemItem, records.BRemFired, records.BSeen)
		}
		if from <= 1 { // layout 2 added patches and builtin origins
			del = append(del, records.BPatches, records.BOrigins)
		}
		for _, name := range del {
			if err := root.DeleteBucket(name); err != nil {
				return fmt.Errorf("delete %s: %w", name, err)
			}
		}
		if from <= 4 { // layout 5 added the pair streams
			b := records.OpenWS(tx, id)
			for _, bk := range []*records.Bucket{b.Index(), b.Counts()} {
				var keys [][]byte
				if err := bk.ForEach(func(k, _ []byte) error {
					if k[0] == records.KindPair {
						keys = append(keys, bytes.Clone(k))
					}
					return nil
				}); err != nil {
					return err
				}
				for _, k := range keys {
					if err := bk.Delete(k); err != nil {
						return err
					}
				}
			}
		}
	}
	if from <= 2 {
		if err := tx.DeleteBucket(records.BRemDue); err != nil {
			return err
		}
	}
	return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(uint64(from)))
}

// dumpEntities is every entity as padd's reads give it, keyed by kind
// and id.
func dumpEntities(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	put := func(k string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(b)
	}
	wss, err := rd(s).ListWorkspaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range wss {
		put("workspace "+ws.ID, ws)
		colls, err := rd(s).ListCollections(ws.Slug)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range colls {
			put("collection "+ws.Slug+"/"+c.Slug, c)
		}
		items, err := rd(s).ListItems(context.Background(), ws.Slug, ListParams{IncludeArchived: true, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items.Items {
			full, err := rd(s).GetItemWith(ws.Slug, it.Ref, true, true)
			if err != nil {
				t.Fatal(err)
			}
			put("item "+ws.Slug+"/"+it.Ref, full)
		}
	}
	return out
}
