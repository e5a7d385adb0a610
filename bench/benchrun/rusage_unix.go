//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the child's peak resident set size in MiB.
func peakRSS(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	kib := float64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		kib /= 1024 // bytes there
	}
	return kib / 1024
}

// minorFaults returns how many page faults the child took that needed no
// disk read: each is a page it touched for the first time, so the count
// follows the work done and not the speed of the machine.
func minorFaults(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return float64(ru.Minflt)
}
