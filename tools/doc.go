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
// symbolic link is a tool error, never a read or a write. The check is made
// twice: once on the path's name, and again as the file is opened, by
// walking the real path from the workspace with openat and O_NOFOLLOW on
// every component (openat2 with RESOLVE_BENEATH on Linux), so a directory
// swapped for a symbolic link between the check and the open fails too.
//
// # Shell
//
// [NewShell] builds the shell tool: every command is screened
// ([sandbox.Screener]), then put to the human approver carried on the
// context when ShellOptions.Approval asks for one ([sandbox.WithApprover];
// none installed means deny), then run with an allowlisted environment,
// confined by a [sandbox.Sandbox] when one is configured.
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
// # Web
//
// [NewWebFetch] fetches public http(s) URLs only: a host that is, or
// resolves to, a loopback, private, link-local or otherwise non-public
// address is refused before the request, and again at dial time against
// the address actually connected to, which covers redirects and DNS
// rebinding. The rule is sandbox.PublicAddr, the one the MCP client's
// HTTP servers obey too. [RegisterWebSearch] adds web_search and its aliases, falling
// back across [SearchBackend]s (DuckDuckGo by default, Exa when
// configured).
package tools
