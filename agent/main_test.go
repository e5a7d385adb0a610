package agent_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running: the
// agent starts goroutines for staging, compaction and learning after a
// turn, and every one must end by the time Wait or Shutdown returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
