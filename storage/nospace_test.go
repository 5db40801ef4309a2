package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

func TestIsNoSpace(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		// The errno and text cases are the engine's (engine.TestIsNoSpace);
		// here, that storage defers to it and never reclassifies a coded
		// refusal.
		{nil, false},
		{fmt.Errorf("commit: %w", &fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.EDQUOT}), true},
		{errors.New("database not open"), false},
		// A coded refusal is never reclassified, whatever it quotes.
		{model.NotFound("Item not found: no space left on device"), false},
		{records.NoSpace(syscall.ENOSPC), true},
	} {
		if got := records.IsNoSpace(c.err); got != c.want {
			t.Errorf("IsNoSpace(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	e, ok := model.AsError(records.Classify(&fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.ENOSPC}))
	if !ok || e.Code != model.CodeInsufficientStorage || api.StatusOf(e.Code) != 507 || e.Details["reason"] != "disk_full" {
		t.Fatalf("classify(ENOSPC) = %+v", e)
	}
	if err := records.Classify(model.NotFound("x")); !model.IsNotFound(err) {
		t.Fatalf("classify changed a coded error: %v", err)
	}
}
