package storage

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/model"
)

func mustAttach(t *testing.T, s *Store, ws string, in NewAttachment) *Attachment {
	t.Helper()
	if in.Hash == "" {
		in.Hash = strings.Repeat("ab", 32)
	}
	a, err := s.CreateAttachment(ws, in, user)
	if err != nil {
		t.Fatalf("create attachment %q: %v", in.Filename, err)
	}
	return a
}

func attNames(p *AttachmentPage) []string {
	var out []string
	for _, a := range p.Attachments {
		out = append(out, a.Filename)
	}
	return out
}

func TestAttachmentRows(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Att").Slug
	mustCreate(t, s, ws, "tasks", "Fix login", nil)
	idea := mustCreate(t, s, ws, "ideas", "Dark mode", nil).Ref

	shot := mustAttach(t, s, ws, NewAttachment{ItemRef: "TASK-1", Filename: "login.png", MIME: "image/png", Size: 300, Width: 4, Height: 3})
	clk.advance(time.Second)
	mustAttach(t, s, ws, NewAttachment{ItemRef: "TASK-1", Filename: "../../etc/trace.log", MIME: "text/plain; charset=utf-8", Size: 20})
	clk.advance(time.Second)
	loose := mustAttach(t, s, ws, NewAttachment{Filename: "Notes.pdf", MIME: "application/pdf", Size: 1000})
	clk.advance(time.Second)
	mustAttach(t, s, ws, NewAttachment{ItemRef: idea, Filename: "sketch.jpg", MIME: "image/jpeg", Size: 5})

	if shot.ItemRef != "TASK-1" || shot.CollectionSlug != "tasks" || shot.FilenameSource != "caller" || shot.Width != 4 {
		t.Fatalf("created %+v", shot)
	}
	if ch, _ := lastLog(t, s, ws); ch.Entity != model.EntityAttachment || ch.Op != model.OpCreated {
		t.Fatalf("logged %+v", ch)
	}
	got, err := rd(s).GetAttachment(ws, shot.ID)
	if err != nil || got.Hash != shot.Hash || got.ItemRef != "TASK-1" || got.ItemTitle != "Fix login" {
		t.Fatalf("get: %+v %v", got, err)
	}

	list := func(f AttachmentFilter) []string {
		t.Helper()
		p, err := rd(s).ListAttachments(ws, f)
		if err != nil {
			t.Fatalf("list %+v: %v", f, err)
		}
		return attNames(p)
	}
	for _, c := range []struct {
		f    AttachmentFilter
		want []string
	}{
		{AttachmentFilter{}, []string{"sketch.jpg", "Notes.pdf", "trace.log", "login.png"}},
		{AttachmentFilter{Sort: "created_at"}, []string{"login.png", "trace.log", "Notes.pdf", "sketch.jpg"}},
		{AttachmentFilter{Sort: "size_desc"}, []string{"Notes.pdf", "login.png", "trace.log", "sketch.jpg"}},
		{AttachmentFilter{Sort: "filename"}, []string{"login.png", "Notes.pdf", "sketch.jpg", "trace.log"}},
		{AttachmentFilter{ItemRef: "TASK-1", Sort: "created_at"}, []string{"login.png", "trace.log"}},
		{AttachmentFilter{Attached: true, Sort: "created_at"}, []string{"login.png", "trace.log", "sketch.jpg"}},
		{AttachmentFilter{Unattached: true}, []string{"Notes.pdf"}},
		{AttachmentFilter{Category: "image", Sort: "created_at"}, []string{"login.png", "sketch.jpg"}},
		{AttachmentFilter{Category: "text"}, []string{"trace.log"}},
		{AttachmentFilter{Category: "document"}, []string{"Notes.pdf"}},
		{AttachmentFilter{Collection: "ideas"}, []string{"sketch.jpg"}},
		{AttachmentFilter{Sort: "created_at", Limit: 2, Offset: 1}, []string{"trace.log", "Notes.pdf"}},
	} {
		if got := list(c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("list %+v: %v, want %v", c.f, got, c.want)
		}
	}
	if p, _ := rd(s).ListAttachments(ws, AttachmentFilter{Limit: 1}); p.Total != 4 || len(p.Attachments) != 1 {
		t.Fatalf("total %d of a page of %d", p.Total, len(p.Attachments))
	}
	for _, f := range []AttachmentFilter{{Attached: true, Unattached: true}, {ItemRef: "TASK-1", Unattached: true}, {Sort: "name"}, {Category: "pictures"}} {
		if _, err := rd(s).ListAttachments(ws, f); err == nil {
			t.Errorf("list %+v was not refused", f)
		}
	}
	_, err = rd(s).ListAttachments(ws, AttachmentFilter{ItemRef: "TASK-9"})
	wantCode(t, err, model.CodeNotFound)

	// Attach binds an unattached row; an attached one is 409, never moved.
	a, err := s.AttachAttachment(ws, loose.ID, idea, user)
	if err != nil || a.ItemRef != idea {
		t.Fatalf("attach: %+v %v", a, err)
	}
	_, err = s.AttachAttachment(ws, loose.ID, "TASK-1", user)
	if e := wantCode(t, err, model.CodeConflict); e.Details["item_ref"] != idea {
		t.Fatalf("details %v", e.Details)
	}
	_, err = s.AttachAttachment(ws, "not-an-id", "TASK-1", user)
	wantCode(t, err, model.CodeNotFound)
	if got := list(AttachmentFilter{ItemRef: idea, Sort: "filename"}); !reflect.DeepEqual(got, []string{"Notes.pdf", "sketch.jpg"}) {
		t.Fatalf("IDEA-1's after attach: %v", got)
	}

	// Delete removes the row; the hash stays named while another row names it.
	if _, err := s.DeleteAttachment(ws, shot.ID, user); err != nil {
		t.Fatal(err)
	}
	_, err = rd(s).GetAttachment(ws, shot.ID)
	wantCode(t, err, model.CodeNotFound)
	if hs, err := rd(s).AttachmentHashes(); err != nil || !hs[shot.Hash] {
		t.Fatalf("hashes %v %v: three rows still name it", hs, err)
	}
	if got := list(AttachmentFilter{ItemRef: "TASK-1"}); !reflect.DeepEqual(got, []string{"trace.log"}) {
		t.Fatalf("TASK-1's after delete: %v", got)
	}

	// An archived item takes no new attachment.
	if _, err := s.DeleteItem(ws, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateAttachment(ws, NewAttachment{ItemRef: "TASK-1", Filename: "x", Hash: shot.Hash}, user)
	wantCode(t, err, model.CodeArchived)
}

func TestCleanFilename(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	for _, c := range []struct{ in, want, src string }{
		{"report.pdf", "report.pdf", "caller"},
		{"../../etc/passwd", "passwd", "normalised"},
		{`C:\Users\me\shot.png`, "shot.png", "normalised"},
		{"a\"b\r\nc.txt", "abc.txt", "normalised"},
		{"", "attachment", "substituted"},
		{"..", "attachment", "substituted"},
		{"dir/", "attachment", "substituted"},
		{"bad\xffutf8", "badutf8", "normalised"},
		{long, strings.Repeat("é", 127), "normalised"},
	} {
		got, src := CleanFilename(c.in)
		if got != c.want || src != c.src {
			t.Errorf("CleanFilename(%q) = %q %s, want %q %s", c.in, got, src, c.want, c.src)
		}
	}
}

// The crash rule: the blob is durable before its row commits. A crash
// between the two leaves an orphan blob that the sweep removes; every row
// that survives names a blob that is there.
func TestCrashBetweenBlobAndRowLeavesOnlyAnOrphan(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Crash").Slug
	mustCreate(t, s, ws, "tasks", "T", nil)
	blobs, err := blobstore.Open(filepath.Join(filepath.Dir(s.Path()), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	upload := func(content, name string) *blobstore.Staged {
		st, err := blobs.Put(bytes.NewReader([]byte(content)), 0)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	kept := upload("kept", "kept.txt")
	mustAttach(t, s, ws, NewAttachment{ItemRef: "TASK-1", Filename: "kept.txt", Hash: kept.Hash, Size: kept.Size})
	lost := upload("lost", "lost.txt")
	crashed := crashCopy(t, s) // kill -9 here: the blob is on disk, its row never committed
	mustAttach(t, s, ws, NewAttachment{ItemRef: "TASK-1", Filename: "lost.txt", Hash: lost.Hash, Size: lost.Size})

	after := reopen(t, crashed)
	hashes, err := rd(after).AttachmentHashes()
	if err != nil {
		t.Fatal(err)
	}
	if !hashes[kept.Hash] || hashes[lost.Hash] {
		t.Fatalf("after the crash the rows name %v; want kept's hash only", hashes)
	}
	res, err := blobs.Sweep(0, func(h string) bool { return hashes[h] })
	if err != nil {
		t.Fatal(err)
	}
	if res.Orphans != 1 || blobs.Has(lost.Hash) || !blobs.Has(kept.Hash) {
		t.Fatalf("sweep %+v: lost there %v, kept there %v", res, blobs.Has(lost.Hash), blobs.Has(kept.Hash))
	}
	p, err := rd(after).ListAttachments(ws, AttachmentFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p.Attachments {
		if !blobs.Has(a.Hash) {
			t.Fatalf("row %s names a missing blob", a.Filename)
		}
	}
}

func TestItemIndexDocHoldsAttachmentNames(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Idx")
	it := mustCreate(t, s, ws.Slug, "tasks", "T", nil)
	mustAttach(t, s, ws.Slug, NewAttachment{ItemRef: "TASK-1", Filename: "quarterly-figures.xlsx"})
	mustAttach(t, s, ws.Slug, NewAttachment{Filename: "unattached.txt"})
	docs, err := rd(s).IndexDocs(ws.ID, []string{it.ID})
	if err != nil || len(docs) != 1 {
		t.Fatal(docs, err)
	}
	if !reflect.DeepEqual(docs[0].Filenames, []string{"quarterly-figures.xlsx"}) {
		t.Fatalf("index text %v", docs[0].Filenames)
	}
}
