//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Probe reports whether this kernel offers Landlock, at which ABI, and so
// whether shell commands can be confined. It makes one system call.
func Probe() Report {
	r := Report{Platform: "linux"}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		r.Reason = "the kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= boot list)"
		if err != nil {
			r.Reason += ": " + err.Error()
		}
		return r
	}
	r.Mechanism, r.LandlockABI, r.Available = "landlock", abi, true
	r.CanDenyNetwork = abi >= 4
	return r
}

// helperSpec is what the parent tells the helper, as JSON in argv[2]. It
// carries paths and a flag only, never anything secret.
type helperSpec struct {
	ReadWrite []string `json:"rw"`
	ReadOnly  []string `json:"ro"`
	Network   bool     `json:"net"`
}

func (s *Sandbox) command(ctx context.Context, dir string, argv, env []string, tmp string) (*exec.Cmd, error) {
	spec := helperSpec{
		ReadWrite: append([]string{s.policy.Workspace, tmp}, s.policy.ReadWrite...),
		ReadOnly:  append(append([]string{}, systemReadOnly...), s.policy.ReadOnly...),
		Network:   s.policy.AllowNetwork,
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	args := append([]string{HelperArg, string(b), "--"}, argv...)
	cmd := exec.CommandContext(ctx, s.helper, args...)
	cmd.Dir = dir
	cmd.Env = env
	return cmd, nil
}

// RunHelperIfRequested confines and replaces the current process when it
// was started by [Sandbox.Command] (os.Args[1] is [HelperArg]); otherwise
// it returns at once. On success it never returns: the process becomes the
// confined command. On failure it prints the reason and exits with status
// 126, the shell's "cannot execute", so nothing runs unconfined.
func RunHelperIfRequested() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	if err := runHelper(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(126)
	}
}

func runHelper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("helper started with malformed arguments")
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("helper policy: %w", err)
	}
	argv := args[2:]
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("landlock unavailable in the helper: %v", err)
	}
	cfg := configFor(abi)
	if spec.Network {
		cfg.HandledAccessNet = 0
	} else if cfg.HandledAccessNet == 0 {
		return fmt.Errorf("landlock ABI %d cannot deny network access", abi)
	}
	rw := landlock.RWDirs(spec.ReadWrite...).IgnoreIfMissing()
	if abi >= 2 {
		rw = rw.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.RODirs(spec.ReadOnly...).IgnoreIfMissing(),
		rw,
		// Not /dev/tty: a command that can read the terminal can steal the
		// keystrokes meant for the approval prompt.
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom").IgnoreIfMissing(),
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("applying landlock: %w", err)
	}
	path := argv[0]
	if filepath.Base(path) == path {
		p, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		path = p
	}
	return unix.Exec(path, argv, os.Environ())
}

// configFor returns the go-landlock configuration handling every right the
// kernel's ABI knows, so nothing the kernel can restrict is left open.
func configFor(abi int) landlock.Config {
	all := []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	if abi >= len(all) {
		abi = len(all) - 1
	}
	return all[abi]
}
