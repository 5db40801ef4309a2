package storage

import "github.com/padd/padd/storage/internal/records"

// IndexDoc is records.IndexDoc, the type storage's callers name: what
// the search index needs to know about one item.
type IndexDoc = records.IndexDoc
