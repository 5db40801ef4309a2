package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// IsNoSpace reports whether err says the disk refused to store more
// (records.IsNoSpace).
func IsNoSpace(err error) bool { return records.IsNoSpace(err) }

// NoSpace is the refusal of a write the disk could not hold: 507
// insufficient_storage (records.NoSpace).
func NoSpace(err error) *model.Error { return records.NoSpace(err) }
