package term

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// REPL, the key reader and the line feed each start one.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
