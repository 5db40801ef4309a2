package syncstate

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func TestOutboxQueuesLocalChangesWhileLinked(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Linked").Slug
	mustCreate(t, s, ws, "tasks", "before linking", nil)
	if got, _ := Of(s).Outbox(ws, 0, 100); len(got) != 0 {
		t.Fatalf("unlinked workspace queued %d changes", len(got))
	}
	if err := Of(s).LinkSync(ws, testLink); err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, s, ws, "tasks", "queued", nil)
	if _, err := s.AddComment(ws, a.Ref, storage.CommentCreate{Body: "also queued"}, user); err != nil {
		t.Fatal(err)
	}
	fromRemote := model.Actor{Kind: model.ActorUser, Source: model.SourceSync}
	if _, err := s.CreateItem(ws, storage.ItemCreate{Collection: "tasks", Title: "pulled"}, fromRemote); err != nil {
		t.Fatal(err)
	}
	// A refused write queues nothing.
	if _, err := s.UpdateItem(ws, a.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "nope"}}, user); err == nil {
		t.Fatal("bad status accepted")
	}
	got, err := Of(s).Outbox(ws, 0, 100)
	if err != nil || len(got) != 2 || got[0].ItemID != a.ID || got[0].Op != model.OpCreated || got[1].Entity != model.EntityComment {
		t.Fatalf("outbox %+v %v", got, err)
	}
	if err := Of(s).AckOutbox(ws, got[0].Seq); err != nil {
		t.Fatal(err)
	}
	if rest, _ := Of(s).Outbox(ws, 0, 100); len(rest) != 1 || rest[0].Seq != got[1].Seq {
		t.Fatalf("after ack: %+v", rest)
	}
	if err := Of(s).UnlinkSync(ws); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, ws, "tasks", "after unlinking", nil)
	if rest, _ := Of(s).Outbox(ws, 0, 100); len(rest) != 0 {
		t.Fatalf("unlinked workspace still queues: %+v", rest)
	}
}
