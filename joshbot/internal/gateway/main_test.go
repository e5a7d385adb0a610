package gateway

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a gateway leaves a goroutine
// behind once Run has returned.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
