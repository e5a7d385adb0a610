//go:build !unix

package mcpclient

import (
	"os"
	"os/exec"
)

func setProcAttr(*exec.Cmd) {}

// termGroup kills p: there is no gentler signal to send here.
func termGroup(p *os.Process) { p.Kill() }

// killGroup kills p.
func killGroup(p *os.Process) { p.Kill() }
