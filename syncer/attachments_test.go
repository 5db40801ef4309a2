package syncer_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
	"github.com/padd/padd/syncer"
)

// pngOf is a small PNG whose pixels say n, so two calls differ.
func pngOf(t testing.TB, n int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: uint8(n), G: uint8(n >> 8), A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// attachLocal uploads data to item (a ref; "" leaves it unattached) in
// padd's workspace ws, as padd's upload route does: blob first, then row.
func (l *local) attachLocal(t testing.TB, ws, item, name string, data []byte) *storage.Attachment {
	t.Helper()
	blobs, err := blobstore.Open(filepath.Join(l.Dir, blobstore.DirName))
	if err != nil {
		t.Fatal(err)
	}
	st, err := blobs.Put(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Store.CreateAttachment(ws, storage.NewAttachment{ItemRef: item, Filename: name, MIME: http.DetectContentType(data),
		Size: st.Size, Hash: st.Hash}, user)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// localBytes reads a local attachment's bytes.
func (l *local) localBytes(t *testing.T, ws, id string) ([]byte, error) {
	t.Helper()
	a, err := views.Of(l.Store).GetAttachment(ws, id)
	if err != nil {
		return nil, err
	}
	blobs, err := blobstore.Open(filepath.Join(l.Dir, blobstore.DirName))
	if err != nil {
		t.Fatal(err)
	}
	f, err := blobs.Open(a.Hash)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// remoteAttachments lists the remote workspace's attachments.
func remoteAttachments(t *testing.T, c *api.Client, ws string) []api.Attachment {
	t.Helper()
	page, err := c.ListAttachments(context.Background(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	return page.Attachments
}

func remoteBytes(t *testing.T, c *api.Client, ws, id string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, _, err := c.DownloadAttachment(context.Background(), ws, id, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Attachments travel both ways, against padd and against the Pad of
// August 2026 (no attach route): a clone brings the remote's, under
// the remote's ids, so the references in its text hold here; one made
// here reaches the remote on its item, and the references to it in
// content, fields and comments name the remote's id there and padd's
// here; one the remote's text names arrives with that text; deletes
// travel; an unattached upload attached later ends as one file on the
// item there.
func TestAttachmentsBothWays(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug})
			rapi := r.API()
			if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
				t.Fatal(err)
			}
			it, err := rapi.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "With a screenshot"})
			if err != nil {
				t.Fatal(err)
			}
			shot := pngOf(t, 1)
			up, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(shot), int64(len(shot)), "shot.png", it.Ref)
			if err != nil {
				t.Fatal(err)
			}
			content := "See ![shot](pad-attachment:" + up.ID + ")\n"
			if _, err := rapi.UpdateItem(ctx, "team", it.Ref, api.ItemUpdate{Content: &content}); err != nil {
				t.Fatal(err)
			}

			// The clone brings it under the remote's id.
			l := startLocal(t)
			if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			if got, err := l.localBytes(t, "team", up.ID); err != nil || !bytes.Equal(got, shot) {
				t.Fatalf("the cloned attachment %s: %d bytes, %v", up.ID, len(got), err)
			}
			ras := remoteAttachments(t, rapi, "team")
			if a, _ := views.Of(l.Store).GetAttachment("team", up.ID); a.ItemRef != it.Ref || a.Filename != "shot.png" ||
				len(ras) != 1 || a.CreatedAt.Format(time.RFC3339) != ras[0].CreatedAt {
				t.Errorf("the cloned attachment is on %q named %q uploaded at %s, want %s, shot.png and %+v", a.ItemRef, a.Filename, a.CreatedAt, it.Ref, ras)
			}
			if v, _ := views.Of(l.Store).GetItem("team", it.Ref); v.Content != content {
				t.Errorf("the cloned content is %q, want %q", v.Content, content)
			}

			// One made here reaches the remote; references to it are
			// translated on the way.
			mine := pngOf(t, 2)
			la := l.attachLocal(t, "team", it.Ref, "mine.png", mine)
			ref := "pad-attachment:" + la.ID
			local := content + "And ![mine](" + ref + ")\n"
			if _, err := l.Store.UpdateItem("team", it.Ref, storage.ItemUpdate{Content: &local, FieldsPatch: map[string]any{"category": "see " + ref}}, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.AddComment("team", it.Ref, storage.CommentCreate{Body: "look: " + ref}, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			var rid string
			for _, ra := range remoteAttachments(t, rapi, "team") {
				if ra.ContentHash == la.Hash {
					if rid != "" {
						t.Fatalf("two copies of mine.png on the remote")
					}
					rid = ra.ID
					if ra.ItemID == nil || *ra.ItemID != it.ID || ra.Filename != "mine.png" {
						t.Errorf("the remote's copy is on %v named %q", ra.ItemID, ra.Filename)
					}
				}
			}
			if rid == "" {
				t.Fatal("mine.png is not on the remote")
			}
			if !bytes.Equal(remoteBytes(t, rapi, "team", rid), mine) {
				t.Error("the remote's bytes of mine.png differ")
			}
			rit, err := rapi.GetItem(ctx, "team", it.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if want := content + "And ![mine](pad-attachment:" + rid + ")\n"; rit.Content != want {
				t.Errorf("the remote's content is %q, want %q", rit.Content, want)
			}
			if got := string(rit.Fields); !strings.Contains(got, `"see pad-attachment:`+rid+`"`) {
				t.Errorf("the remote's fields are %s, want category naming %s", got, rid)
			}
			cs, err := rapi.ListComments(ctx, "team", it.Ref)
			if err != nil || len(cs) != 1 || cs[0].Body != "look: pad-attachment:"+rid {
				t.Errorf("the remote's comments: %+v, %v", cs, err)
			}
			if v, _ := views.Of(l.Store).GetItem("team", it.Ref); v.Content != local {
				t.Errorf("padd's content became %q, want %q", v.Content, local)
			}

			// The remote's text names a new attachment: it arrives with it.
			third := pngOf(t, 3)
			up3, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(third), int64(len(third)), "third.png", it.Ref)
			if err != nil {
				t.Fatal(err)
			}
			remoteText := rit.Content + "Third ![t](pad-attachment:" + up3.ID + ")\n"
			if _, err := rapi.UpdateItem(ctx, "team", it.Ref, api.ItemUpdate{Content: &remoteText}); err != nil {
				t.Fatal(err)
			}
			testwait.UntilOK(t, func() error {
				got, err := l.localBytes(t, "team", up3.ID)
				if err != nil || !bytes.Equal(got, third) {
					return fmt.Errorf("third.png here: %d bytes, %v", len(got), err)
				}
				v, err := views.Of(l.Store).GetItem("team", it.Ref)
				if err != nil {
					return err
				}
				if want := local + "Third ![t](pad-attachment:" + up3.ID + ")\n"; v.Content != want {
					return fmt.Errorf("padd's content is %q, want %q", v.Content, want)
				}
				return nil
			})

			// Deletes travel both ways.
			if err := rapi.DeleteAttachment(ctx, "team", up.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.DeleteAttachment("team", la.ID, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.M.Now("team"); err != nil {
				t.Fatal(err)
			}
			testwait.UntilOK(t, func() error {
				if _, err := views.Of(l.Store).GetAttachment("team", up.ID); err == nil {
					return fmt.Errorf("shot.png is still here")
				}
				for _, ra := range remoteAttachments(t, rapi, "team") {
					if ra.ID == rid {
						return fmt.Errorf("mine.png is still on the remote")
					}
				}
				return nil
			})

			// Unattached here and named in the content, then attached: on the
			// item there (without an attach route, as a second copy), and
			// the content names it here as before, after the remote's text
			// comes back.
			loose := l.attachLocal(t, "team", "", "loose.png", pngOf(t, 4))
			withLoose := "Loose: ![l](pad-attachment:" + loose.ID + ")\n"
			if _, err := l.Store.UpdateItem("team", it.Ref, storage.ItemUpdate{Content: &withLoose}, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			if _, err := l.Store.AttachAttachment("team", loose.ID, it.Ref, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			attached := 0
			for _, ra := range remoteAttachments(t, rapi, "team") {
				if ra.ContentHash == loose.Hash && ra.ItemID != nil && *ra.ItemID == it.ID {
					attached++
				}
			}
			if attached != 1 {
				t.Errorf("%d copies of loose.png on the item there, want 1", attached)
			}
			title := "Renamed there"
			if _, err := rapi.UpdateItem(ctx, "team", it.Ref, api.ItemUpdate{Title: &title}); err != nil {
				t.Fatal(err)
			}
			testwait.UntilOK(t, func() error {
				v, err := views.Of(l.Store).GetItem("team", it.Ref)
				if err != nil || v.Title != title {
					return fmt.Errorf("the rename has not arrived (%v)", err)
				}
				if v.Content != withLoose {
					return fmt.Errorf("padd's content became %q, want %q", v.Content, withLoose)
				}
				return nil
			})
			l.synced(t, "team")
			if cs, err := l.M.Conflicts("team", true); err != nil || len(cs) != 0 {
				t.Errorf("conflicts or set-asides: %+v, %v", cs, err)
			}
		})
	}
}

// An upload whose answer is lost (the remote stored it) is looked for
// before it is sent again: the remote ends with one copy.
func TestLostUploadAnswerMakesNoDuplicate(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	it, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Target"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", it.Ref); return err })
	r.SetFault(testremote.Once(func(q *http.Request) bool {
		return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/attachments")
	}, testremote.Fault{Kind: testremote.DropAfter}))
	a := l.attachLocal(t, "team", it.Ref, "once.png", pngOf(t, 5))
	l.synced(t, "team")
	n := 0
	for _, ra := range remoteAttachments(t, r.API(), "team") {
		if ra.ContentHash == a.Hash {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d copies on the remote, want 1", n)
	}
}

// A remote without attachment storage keeps none: padd keeps its own,
// pushes the rest, and says so in the status; a remote with attachments
// is not reported.
func TestAttachmentsStayWhereTheRemoteKeepsNone(t *testing.T) {
	for _, none := range []bool{false, true} {
		t.Run(fmt.Sprintf("none=%v", none), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{NoAttachments: none})
			l := cloned(t, r)
			res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Here"}, user)
			if err != nil {
				t.Fatal(err)
			}
			l.attachLocal(t, "team", res.Item.Ref, "kept.png", pngOf(t, 6))
			st := l.synced(t, "team")
			if got := strings.Join(st.NotSynced, ","); (got == "attachments") != none {
				t.Errorf("not_synced is %q", got)
			}
			v, err := views.Of(l.Store).GetItem("team", res.Item.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.API().GetItem(ctx, "team", v.Ref); err != nil {
				t.Errorf("the item did not reach the remote: %v", err)
			}
			if cs, err := l.M.Conflicts("team", true); err != nil || len(cs) != 0 {
				t.Errorf("set-asides: %+v, %v", cs, err)
			}
		})
	}
}

// `sync link` to an empty remote takes the attachments too, and the
// text that names them names the remote's ids there.
func TestLinkPushesAttachments(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Empty", Slug: "empty"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.Store.CreateWorkspace(storage.WorkspaceCreate{Name: "Mine", Slug: "mine"}, user); err != nil {
		t.Fatal(err)
	}
	res, err := l.Store.CreateItem("mine", storage.ItemCreate{Collection: "ideas", Title: "Pictured"}, user)
	if err != nil {
		t.Fatal(err)
	}
	a := l.attachLocal(t, "mine", res.Item.Ref, "pic.png", pngOf(t, 7))
	ref := "pad-attachment:" + a.ID
	content := "![p](" + ref + ")\n"
	if _, err := l.Store.UpdateItem("mine", res.Item.Ref, storage.ItemUpdate{Content: &content, FieldsPatch: map[string]any{"category": ref}}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Store.AddComment("mine", res.Item.Ref, storage.CommentCreate{Body: ref}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Link(ctx, api.SyncLink{Workspace: "mine", URL: r.URL(), RemoteWorkspace: "empty", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "mine")
	ras := remoteAttachments(t, r.API(), "empty")
	if len(ras) != 1 || ras[0].ContentHash != a.Hash || ras[0].ItemID == nil {
		t.Fatalf("the remote's attachments: %+v", ras)
	}
	rid := ras[0].ID
	v, err := views.Of(l.Store).GetItem("mine", res.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	rit, err := r.API().GetItem(ctx, "empty", v.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if want := "![p](pad-attachment:" + rid + ")\n"; rit.Content != want || !strings.Contains(rit.Fields, rid) {
		t.Errorf("the remote's item has content %q and fields %s, want %q and %s", rit.Content, rit.Fields, want, rid)
	}
	if cs, err := r.API().ListComments(ctx, "empty", v.Ref); err != nil || len(cs) != 1 || cs[0].Body != "pad-attachment:"+rid {
		t.Errorf("the remote's comments: %+v, %v", cs, err)
	}
	if v.Content != content {
		t.Errorf("padd's content became %q", v.Content)
	}
	if cs, err := l.M.Conflicts("mine", false); err != nil || len(cs) != 0 {
		t.Errorf("conflicts or set-asides: %+v, %v", cs, err)
	}
}

// A file attached here to an item the remote archived meanwhile is work
// on the item, as a comment is: the item stays alive on both sides with
// the file, and a conflict on archived tells the user.
func TestAttachmentKeepsArchivedItemAlive(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug})
			l := cloned(t, r)
			rapi := r.API()
			it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Archived there"})
			if err != nil {
				t.Fatal(err)
			}
			testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", it.Ref); return err })
			l.synced(t, "team")
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			if err := rapi.DeleteItem(ctx, "team", it.Ref); err != nil {
				t.Fatal(err)
			}
			a := l.attachLocal(t, "team", it.Ref, "meanwhile.png", pngOf(t, 8))
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			testwait.UntilOK(t, func() error {
				lv, err := views.Of(l.Store).GetItem("team", it.Ref)
				if err != nil {
					return err
				}
				rv, err := rapi.GetItem(ctx, "team", it.Ref)
				if err != nil {
					return err
				}
				if lv.DeletedAt != nil || rv.DeletedAt != nil {
					return fmt.Errorf("archived here %v, there %v; want alive on both", lv.DeletedAt != nil, rv.DeletedAt != nil)
				}
				return nil
			})
			n := 0
			for _, ra := range remoteAttachments(t, rapi, "team") {
				if ra.ContentHash == a.Hash && ra.ItemID != nil && *ra.ItemID == it.ID {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d copies of the file on the item there, want 1", n)
			}
			cs, err := l.M.Conflicts("team", false)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 || cs[0].Part != "archived" {
				t.Errorf("conflicts and set-asides: %+v, want one on archived", cs)
			}
		})
	}
}

// A file uploaded on the remote, or deleted there, while padd is online
// and named in no text: padd as a remote announces it on the event
// stream, and padd reads that item's attachments (or the whole list,
// for a delete) at once, with no `sync now`. padd's own uploads are not
// read back.
func TestUploadThereArrivesWhileOnline(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{})
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	it, err := rapi.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "Receipts"})
	if err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	testwait.Until(t, "the event stream to connect", func() bool {
		st, err := l.M.Status("team")
		return err == nil && st[0].Live
	})

	mine := l.attachLocal(t, "team", it.Ref, "mine.png", pngOf(t, 1))
	l.synced(t, "team")
	r.ResetStats()
	data := pngOf(t, 2)
	up, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(data), int64(len(data)), "scan.png", it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		got, err := l.localBytes(t, "team", up.ID)
		if err != nil || !bytes.Equal(got, data) {
			return fmt.Errorf("the upload made there is not here: %d bytes, %v", len(got), err)
		}
		return nil
	})
	if n := r.Stats().Requests["GET /api/v1/workspaces/{ws}/export"]; n != 0 {
		t.Errorf("an upload on an item read the whole export (%d times), want that item's attachments", n)
	}
	if err := rapi.DeleteAttachment(ctx, "team", up.ID); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if a, err := views.Of(l.Store).GetAttachment("team", up.ID); err == nil && a != nil {
			return fmt.Errorf("the attachment deleted there is still here")
		}
		return nil
	})
	if a, err := views.Of(l.Store).GetAttachment("team", mine.ID); err != nil || a == nil {
		t.Errorf("padd's own upload is gone: %v", err)
	}
}

// Against the Pad of August 2026, which announces no upload and no link:
// what a teammate adds there while padd stays online arrives with the
// export read padd makes every exportEvery (shortened here), with no
// `sync now` and no reconnect.
func TestWhatPadDoesNotAnnounceArrivesWhileOnline(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	a, err := rapi.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "A"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rapi.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "B"})
	if err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	syncer.SetExportEvery(l.M, 2*time.Second)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	data := pngOf(t, 3)
	up, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(data), int64(len(data)), "scan.png", a.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddLink(ctx, "team", a.Ref, api.ItemLinkCreate{TargetID: b.ID, LinkType: "blocks"}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if _, err := l.localBytes(t, "team", up.ID); err != nil {
			return fmt.Errorf("the upload made there is not here: %v", err)
		}
		ls, err := views.Of(l.Store).ListLinks("team", a.Ref)
		if err != nil || len(ls) != 1 {
			return fmt.Errorf("the link made there: %d here, %v", len(ls), err)
		}
		return nil
	})
}
