//go:build !linux

package main

import (
	"errors"
	"time"
)

// procCPU needs /proc: the concurrent serve figures are measured on Linux.
func procCPU(int) (time.Duration, error) {
	return 0, errors.New("the CPU per API turn is read from /proc: run the serve bench on Linux")
}
