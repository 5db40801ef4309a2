package storage

import (
	"context"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The entity reads are storage/views', which storage's own (internal)
// tests cannot import: these read the same records through
// storage/internal/records, where the logic of each read lives, so a
// test checks what a write left without a second copy of a read.

// testReads reads one store for its tests.
type testReads struct{ base *records.Base }

// rd is s's reads.
func rd(s *Store) testReads { return testReads{&s.base} }

func (t testReads) ListWorkspaces() ([]model.Workspace, error) {
	return records.Workspaces(t.base, records.Live)
}

func (t testReads) GetWorkspace(ref string) (*model.Workspace, error) {
	return records.ReadLiveWorkspace(t.base, ref)
}

func (t testReads) ListCollections(ws string) ([]CollectionInfo, error) {
	return records.CollectionInfos(t.base, ws, false)
}

func (t testReads) GetCollection(ws, ref string) (*CollectionInfo, error) {
	return records.ReadCollectionInfo(t.base, ws, ref, records.LiveCollection)
}

func (t testReads) ListRoles(ws string) ([]RoleInfo, error) { return records.ListRoles(t.base, ws) }

func (t testReads) GetRole(ws, ref string) (*RoleInfo, error) {
	return records.ReadRole(t.base, ws, ref)
}

func (t testReads) ListPlaybooks(ws string) ([]model.PlaybookMeta, error) {
	return records.ReadPlaybooks(t.base, ws)
}

func (t testReads) GetPlaybook(ws, ref string) (*Playbook, error) {
	return records.ReadPlaybook(t.base, ws, ref)
}

func (t testReads) ListReminders(ws, ref string) ([]ReminderView, error) {
	return records.ReadReminders(t.base, ws, ref)
}

func (t testReads) PendingReminders(ws string) ([]ReminderView, error) {
	return records.ReadPendingReminders(t.base, ws)
}

func (t testReads) Starred(ws string, p StarredParams) (*StarredResult, error) {
	return records.ReadStarred(t.base, ws, p)
}

func (t testReads) ListLinks(ws, itemRef string) ([]LinkView, error) {
	return records.ReadLinks(t.base, ws, itemRef)
}

func (t testReads) Deps(ws, itemRef string) (*DepGraph, error) {
	return records.ReadDeps(t.base, ws, itemRef)
}

func (t testReads) GetComment(ws, commentID string) (*model.Comment, error) {
	return records.ReadComment(t.base, ws, commentID)
}

func (t testReads) ListComments(ws, itemRef string) ([]model.Comment, error) {
	return records.ReadComments(t.base, ws, itemRef)
}

func (t testReads) CommentsOfItems(ws string, refs []string) ([][]model.Comment, error) {
	return records.ReadCommentsOfItems(t.base, ws, refs)
}

func (t testReads) GetItem(ws, ref string) (*ItemView, error) {
	return records.ReadItem(t.base, ws, ref)
}

func (t testReads) GetItemWith(ws, ref string, comments, links bool) (*ItemWith, error) {
	return records.ReadItemWith(t.base, ws, ref, comments, links)
}

func (t testReads) GetItems(ws string, refs []string) ([]*ItemView, error) {
	return records.ReadItems(t.base, ws, refs)
}

func (t testReads) ListItems(ctx context.Context, ws string, p ListParams) (*ListResult, error) {
	return records.ReadList(ctx, t.base, ws, p)
}

func (t testReads) Head(ws string) (int64, error) { return records.ReadHead(t.base, ws) }

func (t testReads) GlobalHead() (int64, error) { return records.ReadGlobalHead(t.base) }

func (t testReads) ChangesSince(ctx context.Context, ws string, afterSeq int64, limit int) ([]model.Change, int64, error) {
	return records.ChangesSince(ctx, t.base, ws, afterSeq, limit)
}

func (t testReads) JournalSince(ctx context.Context, afterGlobal int64, limit int) ([]JournalEntry, int64, error) {
	return records.JournalSince(ctx, t.base, afterGlobal, limit)
}

func (t testReads) ItemsChangedSince(ctx context.Context, ws string, afterSeq int64, limit int) (*ItemChanges, error) {
	return records.ItemsChangedSince(ctx, t.base, ws, afterSeq, limit)
}

func (t testReads) ItemsIndex(ctx context.Context, ws, collection string, includeArchived bool) (*ItemsIndexResult, error) {
	return records.ItemsIndex(ctx, t.base, ws, collection, includeArchived)
}

func (t testReads) ChangesByTime(ctx context.Context, ws string, sinceUnixMs int64, cursor string, limit int) (*TimeChanges, error) {
	return records.ChangesByTime(ctx, t.base, ws, sinceUnixMs, cursor, limit)
}

func (t testReads) ListWatches() ([]Watch, error) { return records.ReadWatches(t.base) }

func (t testReads) GetAttachment(ws, id string) (*Attachment, error) {
	return records.ReadAttachment(t.base, ws, id)
}

func (t testReads) AttachmentHashes() (map[string]bool, error) {
	return records.ReadAttachmentHashes(t.base)
}

func (t testReads) ListAttachments(ws string, f AttachmentFilter) (*AttachmentPage, error) {
	return records.ReadAttachments(t.base, ws, f)
}

func (t testReads) IndexDocs(ws string, ids []string) ([]IndexDoc, error) {
	return records.ReadIndexDocs(t.base, ws, ids)
}

func (t testReads) ScanItems(ctx context.Context, ws, after string, limit int) ([]IndexDoc, string, error) {
	return records.ScanIndexDocs(ctx, t.base, ws, after, limit)
}

func (t testReads) WatchNotes(entries []JournalEntry) ([][]WatchNote, error) {
	return records.ReadWatchNotes(t.base, entries)
}
