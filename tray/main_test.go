package tray

import (
	"testing"

	"github.com/padd/padd/internal/leakcheck"
)

// No test leaves a goroutine behind.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
