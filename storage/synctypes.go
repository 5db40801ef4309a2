package storage

import "github.com/padd/padd/storage/internal/records"

// The sync state's records under storage's names: SyncTx writes them in
// the engine's transactions, and storage/syncstate reads and keeps them.
// They live in storage/internal/records, which both packages share.
type (
	SyncKind           = records.SyncKind
	SyncBase           = records.SyncBase
	SyncCollectionBase = records.SyncCollectionBase
	SyncEntryKind      = records.SyncEntryKind
	ConflictState      = records.ConflictState
	SyncConflict       = records.SyncConflict
	LinkState          = records.LinkState
	RemoteLink         = records.RemoteLink
	SyncCursors        = records.SyncCursors
	SyncInFlight       = records.SyncInFlight
)

// What an id map entry maps (records.SyncKind).
const (
	SyncItem       = records.SyncItem
	SyncComment    = records.SyncComment
	SyncCollection = records.SyncCollection
	SyncLink       = records.SyncLink
	SyncAttachment = records.SyncAttachment
)

// Conflict and set-aside entries and their states (records.SyncConflict).
const (
	EntryConflict      = records.EntryConflict
	EntrySetAside      = records.EntrySetAside
	ConflictOpen       = records.ConflictOpen
	ResolvedKeepLocal  = records.ResolvedKeepLocal
	ResolvedKeepRemote = records.ResolvedKeepRemote
	ResolvedMerged     = records.ResolvedMerged
	MaxConflictValue   = records.MaxConflictValue
)

// Link states, bootstraps and the probe's bound (records.RemoteLink).
const (
	LinkActive       = records.LinkActive
	LinkPaused       = records.LinkPaused
	LinkTokenRefused = records.LinkTokenRefused
	LinkRemoteGone   = records.LinkRemoteGone
	BootstrapClone   = records.BootstrapClone
	BootstrapPush    = records.BootstrapPush
	MaxProbeBytes    = records.MaxProbeBytes
)
