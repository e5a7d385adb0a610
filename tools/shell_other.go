//go:build !unix

package tools

import "os/exec"

// killGroupOnCancel leaves the default: killing the process itself.
func killGroupOnCancel(*exec.Cmd) {}
