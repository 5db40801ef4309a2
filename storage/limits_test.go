package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

// Storage holds model's limits on every write path, whatever the door:
// a write over a limit is a validation_error naming the limit, nothing
// of it is stored, and no key-sized value reaches a bbolt key (a 40k
// title or tag was "key too large" before, which the sync engine took
// for a failure of the store and stopped on).
func TestLimitsHeldOnEveryWritePath(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Limits").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "Within the limits", nil)
	long := func(n int) string { return strings.Repeat("x", n) }
	sync := func(fn func(*SyncTx) error) error { return s.SyncApply(ws, syncActor, fn) }
	for _, tc := range []struct {
		name, limit string
		write       func() error
	}{
		{"sync create, 40k title", "title", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.CreateItem(ItemCreate{Collection: "tasks", Title: long(40_000)}, 900)
				return err
			})
		}},
		{"sync create, 1 MB title", "title", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.CreateItem(ItemCreate{Collection: "tasks", Title: long(1 << 20)}, 901)
				return err
			})
		}},
		{"sync create, 40k tag", "tag", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.CreateItem(ItemCreate{Collection: "tasks", Title: "Tagged", Tags: []string{long(40_000)}}, 902)
				return err
			})
		}},
		{"sync create, 20 MiB content", "content", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.CreateItem(ItemCreate{Collection: "tasks", Title: "Big", Content: long(20 << 20)}, 903)
				return err
			})
		}},
		{"sync create, 40k field value", "field value", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.CreateItem(ItemCreate{Collection: "tasks", Title: "Field", Fields: map[string]any{"note": long(40_000)}}, 904)
				return err
			})
		}},
		{"sync update, 2,000-character title", "title", func() error {
			return sync(func(t *SyncTx) error {
				title := long(2_000)
				_, err := t.UpdateItem(it.ID, ItemUpdate{Title: &title})
				return err
			})
		}},
		{"sync comment, 5 MiB", "comment", func() error {
			return sync(func(t *SyncTx) error {
				_, err := t.AddComment(it.ID, CommentCreate{Body: long(5 << 20)})
				return err
			})
		}},
		{"create, 40k tag", "tag", func() error {
			_, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: "Tagged", Tags: []string{long(40_000)}}, user)
			return err
		}},
		{"update, 3 MiB content", "content", func() error {
			c := long(3 << 20)
			_, err := s.UpdateItem(ws, it.ID, ItemUpdate{Content: &c}, user)
			return err
		}},
		{"comment, 100,001 characters", "comment", func() error {
			_, err := s.AddComment(ws, it.ID, CommentCreate{Body: long(100_001)}, user)
			return err
		}},
		{"bundle import, 40k tag", "tag", func() error {
			_, err := s.ImportWorkspace(context.Background(), ImportInput{Name: "Imported", Collections: []ImportCollection{{Key: "c", Create: CollectionCreate{Name: "Tasks"}}},
				Source: (&ImportEntities{Items: []ImportItem{{Key: "i", CollectionKey: "c", Title: "Tagged", Tags: []string{long(40_000)}}}}).Source()}, user)
			return err
		}},
		{"collection, 20k description", "description", func() error {
			_, err := s.CreateCollection(ws, CollectionCreate{Name: "Notes", Description: long(20_000)}, user)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, _ := rd(s).Head(ws)
			e := wantCode(t, tc.write(), model.CodeValidation)
			if e.Details["field"] != tc.limit {
				t.Fatalf("refusal names %v, want %q: %v", e.Details["field"], tc.limit, e)
			}
			if len(e.Message) > 400 {
				t.Fatalf("the refusal echoes the value: %d bytes", len(e.Message))
			}
			if h, _ := rd(s).Head(ws); h != head {
				t.Fatalf("a refused write moved the head from %d to %d", head, h)
			}
		})
	}
	if wss, err := rd(s).ListWorkspaces(); err != nil || len(wss) != 1 {
		t.Errorf("workspaces after a refused import: %d, %v", len(wss), err)
	}
	got, err := rd(s).GetItem(ws, it.ID)
	if err != nil || got.Title != "Within the limits" {
		t.Fatalf("the item changed: %+v %v", got, err)
	}
}

// A key or value past bbolt's sizes, should one ever get past the
// limits, is a refusal of the write (validation_error), not a failure of
// the store.
func TestTooLargeForBboltIsARefusal(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Keys").Slug
	err := s.write(ws, user, func(w *wtx) error {
		return w.ws.Slugs().Put([]byte(strings.Repeat("k", 40_000)), []byte("v"))
	})
	wantCode(t, err, model.CodeValidation)
}
