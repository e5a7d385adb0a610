// Package cmdutil is what joshbot's commands share: the [Factory] they
// reach the rest of the binary through (streams, paths, the config,
// runtime and stored-state loaders, the logger, the clock, and the one
// outside fact besides the clock, the sandbox probe), and the few helpers
// every command file uses to fail, take --profile and show paths the same
// way.
//
// A command wires its flags into an Options struct holding the Factory
// parts it needs and hands it to a run function; the constructor takes
// that function as runF, so a test can check flag parsing alone. The
// Factory is built once per process by internal/cli; no command sets a
// field of it for another to read.
package cmdutil
