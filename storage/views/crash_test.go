package views

import (
	"github.com/padd/padd/storage"
)

// setNoSync turns fsync off or on for the log and the checkpoints: for
// benchmark and test setup only. Call it between writes.
func setNoSync(s *storage.Store, on bool) { s.Base().DB.SetNoSync(on) }
