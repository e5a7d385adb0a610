package docscheck

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/joshbot/joshbot/sandbox"
)

// TestMain lets the test binary act as the sandbox helper the confined
// shell re-executes, and fails the package's tests when a goroutine
// outlives them: the checker's agent runs its turn (and any background
// work) on goroutines that Check must wait for.
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	goleak.VerifyTestMain(m)
}
