//go:build !unix

package main

import "os"

// peakRSS is unknown where the kernel reports no rusage.
func peakRSS(*os.ProcessState) float64 { return 0 }

// minorFaults is unknown where the kernel reports no rusage.
func minorFaults(*os.ProcessState) float64 { return 0 }
