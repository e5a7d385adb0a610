//go:build darwin

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

const sandboxExec = "/usr/bin/sandbox-exec"

// Probe reports whether /usr/bin/sandbox-exec is present to run commands
// under a Seatbelt profile.
func Probe() Report {
	r := Report{Platform: "darwin"}
	if _, err := os.Stat(sandboxExec); err != nil {
		r.Reason = sandboxExec + " is missing, so no Seatbelt profile can be applied"
		return r
	}
	r.Mechanism, r.Available, r.CanDenyNetwork = "seatbelt", true, true
	return r
}

// platformState is empty: Seatbelt needs nothing prepared.
type platformState struct{}

func (s *Sandbox) prepare() error { return nil }

func (s *Sandbox) command(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, func(), error) {
	tmp, err := os.MkdirTemp("", "sandbox-tmp-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	cleanup := func() { os.RemoveAll(tmp) }
	pol := s.policy
	if pol.CacheDir != "" {
		pol.ReadWrite = append(slices.Clone(pol.ReadWrite), pol.CacheDir)
		env = setEnv(env, cacheEnv(pol.CacheDir)...)
	} else {
		env = setEnv(env, cacheEnv(filepath.Join(tmp, "cache"))...)
	}
	prof, err := SeatbeltProfile(&pol, tmp)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	args := append([]string{"-p", prof}, argv...)
	cmd := exec.CommandContext(ctx, sandboxExec, args...)
	cmd.Dir = dir
	cmd.Env = setEnv(env, "TMPDIR="+tmp)
	return cmd, cleanup, nil
}

// RunHelperIfRequested returns at once: macOS confines through
// sandbox-exec, not a re-executed helper.
func RunHelperIfRequested() {}

// probeKey is empty: the Seatbelt probe is one stat, cheaper than a cache.
func probeKey(string) string { return "" }
