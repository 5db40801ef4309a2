package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
	"github.com/padd/padd/storage/internal/records"
)

// importItems is the size of the imports below: ten chunks and more.
const importItems = 20_000

// bigImport is an import of n items in one collection.
func bigImport(n int) ImportInput {
	e := &ImportEntities{}
	for i := range n {
		e.Items = append(e.Items, ImportItem{Key: fmt.Sprintf("i%d", i), CollectionKey: "c", Title: fmt.Sprintf("Item %d", i)})
	}
	return ImportInput{Name: "Big", Collections: []ImportCollection{{Key: "c", Create: CollectionCreate{Name: "Tasks"}}}, Source: e.Source()}
}

// failingSource answers err for item at.
type failingSource struct {
	ImportSource
	at  int
	err error
}

func (f failingSource) Item(i int) (ImportItem, error) {
	if i == f.at {
		return ImportItem{}, f.err
	}
	return f.ImportSource.Item(i)
}

// wsBuckets counts the workspaces' bucket trees under ws/, and of them
// those an import staged.
func wsBuckets(t testing.TB, view func(fn func(tx *records.Txn) error) error) (all, staged int) {
	t.Helper()
	err := view(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS)
		return root.ForEachBucket(func(k []byte) error {
			all++
			if root.Bucket(k).Get(kStagedImport) != nil {
				staged++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return all, staged
}

// wantNothingImported checks that the store holds the one workspace
// "keep" and nothing of an import: no workspace, no staged buckets, no
// journal entry, no import in progress.
func wantNothingImported(t *testing.T, s *Store, global int64) {
	t.Helper()
	wss, err := rd(s).ListWorkspaces()
	if err != nil || len(wss) != 1 || wss[0].Slug != "keep" {
		t.Errorf("workspaces %v, %v; want keep alone", wss, err)
	}
	if _, err := rd(s).GetWorkspace("big"); !model.IsNotFound(err) {
		t.Errorf("the import's workspace resolves: %v", err)
	}
	if all, staged := wsBuckets(t, s.base.View); all != 1 || staged != 0 {
		t.Errorf("%d workspace bucket trees, %d staged; want keep's alone", all, staged)
	}
	if g, _ := rd(s).GlobalHead(); g != global {
		t.Errorf("the journal moved from %d to %d", global, g)
	}
	if im := s.Imports(); len(im) != 0 {
		t.Errorf("imports in progress: %+v", im)
	}
}

// An import refused in a later chunk, after several chunks committed,
// leaves nothing: whether its source refuses an item or storage does.
func TestImportRefusedInALaterChunkLeavesNothing(t *testing.T) {
	const at = 15_000 // three quarters through, chunks after the first
	for name, in := range map[string]func() ImportInput{
		"source refuses": func() ImportInput {
			in := bigImport(importItems)
			in.Source = failingSource{in.Source, at, model.Invalid("item %d is bad", at).With("entity", "item").With("index", at)}
			return in
		},
		"storage refuses": func() ImportInput {
			e := &ImportEntities{}
			for i := range importItems {
				coll := "c"
				if i == at {
					coll = "missing"
				}
				e.Items = append(e.Items, ImportItem{Key: fmt.Sprintf("i%d", i), CollectionKey: coll, Title: fmt.Sprintf("Item %d", i)})
			}
			in := bigImport(0)
			in.Source = e.Source()
			return in
		},
	} {
		t.Run(name, func(t *testing.T) {
			chunks := 0
			s, _ := openTestWith(t, Options{NoSync: true, ImportStep: func(context.Context, int) { chunks++ }})
			mustCreate(t, s, mustWorkspace(t, s, "Keep").Slug, "tasks", "Kept", nil)
			global, _ := rd(s).GlobalHead()
			_, err := s.ImportWorkspace(context.Background(), in(), user)
			e := wantCode(t, err, model.CodeValidation)
			if e.Details["entity"] != "item" || e.Details["index"] != at {
				t.Errorf("the refusal names %v %v, want item %d", e.Details["entity"], e.Details["index"], at)
			}
			if chunks < 1+at/importChunk {
				t.Fatalf("%d chunks committed before the refusal; want the staging and %d of items", chunks, at/importChunk)
			}
			wantNothingImported(t, s, global)
		})
	}
}

// While an import is between its chunks, with thousands of items written,
// nothing of it is visible (not listed, not found by its slug, not in the
// journal), and other writes and reads are answered; once it finishes it
// is whole, and the journal holds one entry for it.
func TestReadsDuringAnImportSeeNoHalfWorkspace(t *testing.T) {
	held, release := make(chan int), make(chan struct{})
	s, _ := openTestWith(t, Options{NoSync: true, ImportStep: func(_ context.Context, chunk int) {
		if chunk == 5 {
			held <- chunk
			<-release
		}
	}})
	keep := mustWorkspace(t, s, "Keep")
	global, _ := rd(s).GlobalHead()
	type answer struct {
		out *ImportOutcome
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := s.ImportWorkspace(context.Background(), bigImport(importItems), user)
		done <- answer{out, err}
	}()
	testwait.Recv(t, "the import's fifth chunk", held)

	im := s.Imports()
	if len(im) != 1 || im[0].ItemsWritten == 0 || im[0].ItemsWritten >= importItems {
		t.Fatalf("imports in progress: %+v; want one, part written", im)
	}
	wss, err := rd(s).ListWorkspaces()
	if err != nil || len(wss) != 1 {
		t.Errorf("during the import the workspaces are %v, %v; want keep alone", wss, err)
	}
	if _, err := rd(s).GetWorkspace("big"); !model.IsNotFound(err) {
		t.Errorf("during the import its workspace resolves: %v", err)
	}
	if entries, _, err := rd(s).JournalSince(context.Background(), global, 100); err != nil || len(entries) != 0 {
		t.Errorf("during the import the journal holds %d entries (%v)", len(entries), err)
	}
	it := mustCreate(t, s, keep.Slug, "tasks", "Written beside the import", nil)
	if got, err := rd(s).GetItem(keep.Slug, it.ID); err != nil || got.Title != it.Title {
		t.Errorf("a read beside the import: %v, %v", got, err)
	}
	select {
	case a := <-done:
		t.Fatalf("the import ended while held: %v", a.err)
	default:
	}

	close(release)
	a := testwait.Recv(t, "the import", done)
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.out.Imported.Items != importItems || a.out.Workspace.Slug != "big" {
		t.Fatalf("imported %+v as %q", a.out.Imported, a.out.Workspace.Slug)
	}
	n := 0
	if err := s.base.Read("big", func(r *records.Rtx) error { n = r.WS.Items().KeyN(); return nil }); err != nil || n != importItems {
		t.Errorf("the imported workspace holds %d items (%v), want %d", n, err, importItems)
	}
	checkListIndex(t, s, a.out.Workspace.ID)
	entries, _, err := rd(s).JournalSince(context.Background(), global, 100)
	if err != nil || len(entries) != 2 {
		t.Fatalf("the journal after the import: %+v, %v; want the write beside it and the import", entries, err)
	}
	if c := entries[1].Change; entries[1].WorkspaceID != a.out.Workspace.ID || c.Entity != model.EntityWorkspace || c.Op != model.OpCreated {
		t.Errorf("the import's journal entry %+v", entries[1])
	}
	if _, staged := wsBuckets(t, s.base.View); staged != 0 {
		t.Errorf("%d staged after the import", staged)
	}
}

// An import whose context ends (its client gone, padd stopping) stops at
// its next chunk and leaves nothing.
func TestImportStoppedLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := openTestWith(t, Options{NoSync: true, ImportStep: func(_ context.Context, chunk int) {
		if chunk == 3 {
			cancel()
		}
	}})
	mustWorkspace(t, s, "Keep")
	global, _ := rd(s).GlobalHead()
	_, err := s.ImportWorkspace(ctx, bigImport(importItems), user)
	if !IsImportStopped(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped import answered %v", err)
	}
	wantNothingImported(t, s, global)
}

// What an import staged before a crash (here: the store closed under it,
// so it cannot drop it either) is still in the file, unseen, and the
// next open drops it.
func TestInterruptedImportIsDroppedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	held, release := make(chan int), make(chan struct{})
	s, err := Open(path, Options{NoSync: true, Logger: slog.New(slog.DiscardHandler), ImportStep: func(_ context.Context, chunk int) {
		if chunk == 3 {
			held <- chunk
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	mustWorkspace(t, s, "Keep")
	global, _ := rd(s).GlobalHead()
	done := make(chan error, 1)
	go func() {
		_, err := s.ImportWorkspace(context.Background(), bigImport(importItems), user)
		done <- err
	}()
	testwait.Recv(t, "the import's third chunk", held)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := testwait.Recv(t, "the import", done); !errors.Is(err, ErrClosed) {
		t.Fatalf("an import whose store closed answered %v", err)
	}

	f, err := engine.OpenFile(path, testwait.Limit)
	if err != nil {
		t.Fatal(err)
	}
	all, staged := wsBuckets(t, f.View)
	f.Close()
	if all != 2 || staged != 1 {
		t.Fatalf("after the interrupted import the file holds %d workspace trees, %d staged; want keep's and the import's", all, staged)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantNothingImported(t, s, global)
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}
