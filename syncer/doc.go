// Package syncer is padd's sync engine: it keeps each linked workspace
// and its workspace on a remote Pad server equal, both ways, through
// remote.Client. One worker per linked workspace pushes the workspace's
// outbox in order and pulls the remote's changes (its seq feed, woken by
// its event stream), merging an item both sides changed against the
// last version both agreed on (remote/merge). Everything it learns and
// every step it takes is written to the store in the same transaction
// as the local change it goes with (storage.SyncApply), so a padd killed
// at any point resumes where it was. docs/SYNC.md is the design.
package syncer
