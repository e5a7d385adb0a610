package apiserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// turn, a stream writer or a connection that outlives its request.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
