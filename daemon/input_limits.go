package daemon

import "github.com/padd/padd/storage"

// checkInput refuses a write whose user-supplied strings are longer than
// model's limits before the handler starts it; storage checks the same
// on every write (storage.CheckInput), whatever the door.
func checkInput(v any) error { return storage.CheckInput(v) }
