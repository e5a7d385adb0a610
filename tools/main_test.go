package tools

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/joshbot/joshbot/sandbox"
)

// TestMain lets the test binary act as the Landlock helper that the
// sandboxed shell re-executes, and fails the package if a test leaves a
// goroutine running (the parallel tool starts one per task and must wait
// for every one).
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
