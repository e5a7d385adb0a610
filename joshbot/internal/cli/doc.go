// Package cli is joshbot's command line: the root command and its
// persistent flags (--config, --log-level, --output), the command tree
// (only the named top-level command is built, so start-up stays cheap),
// SIGTERM handling, exit codes and error printing, and one file per
// top-level command.
//
// A command wires its flags into an Options struct and hands it to a run
// function; the newXCommand constructors take that function as runF, so a
// test can check flag parsing alone. Commands reach the rest of the
// binary through the app's few shared services (streams, paths, the
// config and runtime loaders, the logger, the clock), never through state
// another command set: what a command wants of the runtime is a
// runtime.Options field.
//
// [Main] is the process's entry; cmd/joshbot calls it after the sandbox
// helper check.
package cli
