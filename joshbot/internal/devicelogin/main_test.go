package devicelogin

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// HTTP client's connections must be closed with the test servers.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
