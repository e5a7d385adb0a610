//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs the command in a session of its own and kills its
// whole process group when the context ends, so a timed-out command's
// children die with it. The new session also has no controlling terminal:
// a command cannot open /dev/tty to read the keystrokes meant for the
// approval prompt, or write text that looks like joshbot's own.
func killGroupOnCancel(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
