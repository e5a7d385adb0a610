package tools

import (
	"os"
	"testing"

	"github.com/joshbot/joshbot/sandbox"
)

// TestMain lets the test binary act as the Landlock helper that the
// sandboxed shell re-executes.
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	os.Exit(m.Run())
}
