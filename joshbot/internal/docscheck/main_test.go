package docscheck

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// checker's agent runs its turn (and any background work) on goroutines
// that Check must wait for.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
