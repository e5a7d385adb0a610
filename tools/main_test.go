package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running: the
// parallel tool starts one per task and must wait for every one.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
