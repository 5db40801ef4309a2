package padtoml

import (
	"testing"

	"github.com/padd/padd/internal/leakcheck"
)

// TestMain fails the package's tests if a goroutine they started is still
// running after them: everything the package starts, it stops.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
