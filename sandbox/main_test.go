package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// afterTests run once every test is done: removing what tests shared.
var afterTests []func()

// TestMain lets the test binary serve as the sandbox's helper: a command
// started by Sandbox.Command re-executes this binary with HelperArg.
// With helperEnv set (TestCorpusThroughDedicatedHelper) every sandbox
// uses that dedicated helper instead, and this binary refuses to serve,
// so a test that passes has run through the dedicated helper.
func TestMain(m *testing.M) {
	if p := os.Getenv(helperEnv); p != "" {
		if len(os.Args) > 1 && os.Args[1] == HelperArg {
			fmt.Fprintln(os.Stderr, "sandbox.test: run as the helper although the dedicated helper was set")
			os.Exit(125)
		}
		defaultHelper.path, defaultHelper.id = p, goToolBuildID(p)
	}
	RunHelperIfRequested()
	code := m.Run()
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}

// helperEnv names an already built dedicated helper, for the test binary
// re-run with the corpus going through it.
const helperEnv = "SANDBOX_TEST_HELPER"

// goToolBuildID is the Go build ID of the executable at path as the go
// command reads it, or empty.
func goToolBuildID(path string) string {
	out, err := exec.Command("go", "tool", "buildid", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
