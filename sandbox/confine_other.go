//go:build !linux && !darwin

package sandbox

import (
	"context"
	"os/exec"
	"runtime"
)

// Probe reports that this platform has no sandbox joshbot can use.
func Probe() Report {
	return Report{Platform: runtime.GOOS, Reason: "there is no sandbox for " + runtime.GOOS + " (Landlock needs Linux, Seatbelt needs macOS)"}
}

// platformState is empty: there is nothing to prepare.
type platformState struct{}

func (s *Sandbox) prepare() error { return nil }

func (s *Sandbox) command(context.Context, string, []string, []string) (*exec.Cmd, func(), error) {
	return nil, nil, ErrUnsupported
}

// RunHelperIfRequested returns at once: only Linux re-executes a helper.
func RunHelperIfRequested() {}

// probeKey is empty: there is nothing to cache.
func probeKey(string) string { return "" }
