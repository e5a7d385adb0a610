// Package tools holds the actions joshbot's agent can take: the [Tool]
// interface, the [Registry] that names and runs tools, and the built-in
// tools themselves.
//
// # Quick start
//
//	reg := tools.NewRegistry()
//	if err := tools.RegisterFilesystem(reg, "/home/me/.joshbot/workspace"); err != nil { ... }
//	out, err := reg.Execute(ctx, "read_file", json.RawMessage(`{"path":"notes.md"}`))
//
// # Containment
//
// Every filesystem tool is confined to one workspace directory: a path that
// is absolute outside it, climbs out with "..", or reaches out through a
// symbolic link is a tool error, never a read or a write.
//
// # Errors
//
// A tool reports a failure as an error; the agent hands the error text back
// to the model so it can correct itself. [ErrUnknownTool] and
// [ErrBadArguments] mark mistakes the model made in calling a tool.
//
// # Memory
//
// memory_search ([RegisterMemorySearch]) and session_search
// ([RegisterSessionSearch]) recall earlier conversations. Both read the
// conversation making the call from the context ([WithSessionKey]) and
// never return what another conversation said.
//
// Later releases add the shell (screened and optionally sandboxed through
// the sandbox module), web fetch and search, cron, message, send_file and
// subagent tools.
package tools
