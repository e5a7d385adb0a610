package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the Landlock helper: a command
// started by Sandbox.Command re-executes this binary with HelperArg.
func TestMain(m *testing.M) {
	RunHelperIfRequested()
	os.Exit(m.Run())
}
