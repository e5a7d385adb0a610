//go:build darwin

package sandbox

import (
	"context"
	"os"
	"os/exec"
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

func (s *Sandbox) command(ctx context.Context, dir string, argv, env []string, tmp string) (*exec.Cmd, error) {
	prof, err := SeatbeltProfile(&s.policy, tmp)
	if err != nil {
		return nil, err
	}
	args := append([]string{"-p", prof}, argv...)
	cmd := exec.CommandContext(ctx, sandboxExec, args...)
	cmd.Dir = dir
	cmd.Env = env
	return cmd, nil
}

// RunHelperIfRequested returns at once: macOS confines through
// sandbox-exec, not a re-executed helper.
func RunHelperIfRequested() {}
