package mcpclient

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		os.Exit(runTestMode(mode))
	}
	goleak.VerifyTestMain(m)
}
