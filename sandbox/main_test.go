package sandbox

import (
	"os"
	"testing"
)

// afterTests run once every test is done: removing what tests shared.
var afterTests []func()

// TestMain lets the test binary serve as the sandbox's helper: a command
// started by Sandbox.Command re-executes this binary with HelperArg.
func TestMain(m *testing.M) {
	RunHelperIfRequested()
	code := m.Run()
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}
