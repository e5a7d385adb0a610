package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for joshbot as the sandbox
// helper, exactly as main does.
func TestMain(m *testing.M) {
	sandboxExec()
	os.Exit(m.Run())
}
