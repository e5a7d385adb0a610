// Package helper is all a dedicated sandbox helper program needs: a main
// that calls [RunIfRequested] and nothing else can be named in
// sandbox.Options.Helper (with sandbox.Options.HelperBuildID). It links
// only the code that confines a command, not the rest of package sandbox
// (the screener, the network proxy, the address guard), so every
// confined command starts faster than through a large program re-running
// itself as the helper.
//
//	func main() {
//		helper.RunIfRequested()
//		fmt.Fprintln(os.Stderr, "run only by the sandbox")
//		os.Exit(2)
//	}
//
// On linux/amd64, link it with [Entry] as its entry point (-ldflags
// "-E github.com/joshbot/joshbot/sandbox/helper.Entry") and it makes its
// own namespaces before the Go runtime starts, which spares the program
// that starts it a fork of its whole memory map on every command.
package helper

import "github.com/joshbot/joshbot/sandbox/internal/confine"

// RunIfRequested does what sandbox.RunHelperIfRequested does: when this
// process was started by sandbox.Sandbox.Command it confines and runs the
// command and never returns (exiting 126 on a setup failure, so nothing
// runs unconfined); otherwise it returns at once.
func RunIfRequested() { confine.RunIfRequestedAfter(entry()) }
