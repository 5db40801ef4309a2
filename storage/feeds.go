package storage

import "github.com/padd/padd/storage/internal/records"

// The change-log readers are storage/views' (records' changefeeds.go);
// these are the names storage's callers know them by.

// Change-log page sizes.
const (
	DefaultChangesLimit     = records.DefaultChangesLimit
	MaxChangesLimit         = records.MaxChangesLimit
	DefaultItemChangesLimit = records.DefaultItemChangesLimit
	MaxItemChangesLimit     = records.MaxItemChangesLimit
	DefaultTimeChangesLimit = records.DefaultTimeChangesLimit
)

// JournalEntry is records.JournalEntry.
type JournalEntry = records.JournalEntry

// SkinnyItem is records.SkinnyItem.
type SkinnyItem = records.SkinnyItem

// ItemChange is records.ItemChange.
type ItemChange = records.ItemChange

// ItemChanges is records.ItemChanges.
type ItemChanges = records.ItemChanges

// ItemsIndexResult is records.ItemsIndexResult.
type ItemsIndexResult = records.ItemsIndexResult

// TimeChanges is records.TimeChanges.
type TimeChanges = records.TimeChanges
