package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
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
		{NoSpace(syscall.ENOSPC), true},
	} {
		if got := IsNoSpace(c.err); got != c.want {
			t.Errorf("IsNoSpace(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	e, ok := model.AsError(classify(&fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.ENOSPC}))
	if !ok || e.Code != model.CodeInsufficientStorage || api.StatusOf(e.Code) != 507 || e.Details["reason"] != "disk_full" {
		t.Fatalf("classify(ENOSPC) = %+v", e)
	}
	if err := classify(model.NotFound("x")); !model.IsNotFound(err) {
		t.Fatalf("classify changed a coded error: %v", err)
	}
}
