package storage

import (
	"github.com/padd/padd/storage/internal/records"
)

// ListParams is records.ListParams, the type storage's callers name.
type ListParams = records.ListParams

// ListResult is records.ListResult, the type storage's callers name.
type ListResult = records.ListResult
