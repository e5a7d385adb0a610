package main

import "github.com/joshbot/joshbot/sandbox"

// sandboxExec turns this process into the confined child when it was
// started as the Landlock helper (argv[1] is sandbox.HelperArg): it
// restricts itself and execs the command, never returning. For every other
// invocation it returns at once after one string comparison, so start-up
// stays cheap. It must run before anything else in main: the helper should
// do no work of its own before it is confined.
func sandboxExec() {
	sandbox.RunHelperIfRequested()
}
