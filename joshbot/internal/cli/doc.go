// Package cli is joshbot's command line: the root command and its
// persistent flags (--config, --log-level, --output), the command tree
// (only the named top-level command is built, so start-up stays cheap),
// SIGTERM handling, exit codes and error printing, and the conversation,
// service and config commands (agent, gateway, serve, onboard, preflight,
// status, configure, auth, profiles, docs, version). The commands over the
// stored state (sessions, memory, cron, incidents, skills, mcp, tuning)
// live in internal/statecmd.
//
// A command wires its flags into an Options struct and hands it to a run
// function; the newXCommand constructors take that function as runF, so a
// test can check flag parsing alone. Commands reach the rest of the
// binary only through the [cmdutil.Factory] the root builds (streams,
// paths, the config, runtime and stored-state loaders, the logger, the
// clock), whose parts their Options hold, never through state another
// command set: what a command wants of the runtime is a runtime.Options
// field.
//
// [Main] is the process's entry; cmd/joshbot calls it after the sandbox
// helper check.
package cli
