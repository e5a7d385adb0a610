//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs the command in its own process group and kills
// the whole group when the context ends, so a timed-out command's children
// die with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
