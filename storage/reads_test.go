package storage

import (
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
