// Command joshbot-sandbox is the helper that confines each command of
// joshbot's shell tool. joshbot runs it, from beside its own executable,
// when it is the very file joshbot was built with (joshbot checks its Go
// build ID, whose last part hashes the file); otherwise joshbot re-runs itself as the helper. It links
// only the sandbox module's confining code (package sandbox/helper), so
// each confined command starts far sooner than through joshbot, which
// initialises every package it links first. Run by hand it only says what
// it is.
package main

import (
	"fmt"
	"os"

	"github.com/joshbot/joshbot/sandbox/helper"
)

func main() {
	helper.RunIfRequested()
	fmt.Fprintln(os.Stderr, "joshbot-sandbox: this is the helper joshbot runs to confine its shell commands; it is not run by hand")
	os.Exit(2)
}
