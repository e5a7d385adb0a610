//go:build benchinit

package main

import "os"

// Built with -tags benchinit, the binary exits as soon as every package
// is initialized, before main runs. The bench suite times it to show how
// much of a command's start-up is spent before any joshbot code runs:
// the Go runtime and the init of every linked package. The file name
// sorts last so this runs after the package's other init work.
func init() { os.Exit(0) }
