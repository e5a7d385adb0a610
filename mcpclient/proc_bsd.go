//go:build unix && !linux

package mcpclient

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in a process group of its own, so stopping it
// stops what it started.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
