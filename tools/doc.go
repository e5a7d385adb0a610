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
// # Turn context
//
// What belongs to one turn travels on the context, never on a tool: the
// conversation ([WithRecipient], [WithSessionKey]) that message, send_file,
// cron and the search tools work for, and the [Spawner] the subagent tools
// hand work to. Tools that need something outside the module (a bus, a job
// store, a skill library, the config) declare the small interface they
// use: [Outbox], [CronStore], [SkillLibrary], [ConfigAccess].
//
// # Memory
//
// memory_search ([RegisterMemorySearch]) and session_search
// ([RegisterSessionSearch]) recall earlier conversations. Both read the
// conversation making the call from the context ([WithSessionKey]) and
// never return what another conversation said.
//
// Later releases add the shell (screened and optionally sandboxed through
// the sandbox module) and web fetch and search.
package tools
