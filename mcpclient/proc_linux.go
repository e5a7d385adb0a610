package mcpclient

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in a process group of its own, so stopping it
// stops what it started, and asks the kernel to kill it should joshbot die
// without a chance to clean up.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
