package cron_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if the heartbeat goroutine outlives a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
