package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
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
		defaultHelper.path, defaultHelper.sum = p, fileSHA256(p)
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

// fileSHA256 is the hex SHA-256 of the file at path, or empty.
func fileSHA256(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
