//go:build unix

package mcpclient

import (
	"os"
	"syscall"
)

// termGroup sends SIGTERM to the process group p leads.
func termGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group p leads, taking any process
// the server started with it.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
