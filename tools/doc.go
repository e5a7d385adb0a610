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
// # Adding tools
//
// There is one way to add each tool. A family of tools that share a
// configuration is added by its RegisterX function ([RegisterFilesystem],
// [RegisterWebSearch], [RegisterSubagents], ...). A single tool whose value
// its caller keeps, to close it ([Shell] runs background jobs) or to wrap
// it, is built by its NewX function ([NewShell], [NewWebFetch]) and added
// with [Registry.Register], as is any tool of the caller's own.
//
// # Arguments and schemas
//
// A builtin tool's parameter schema is generated from the Go type its
// arguments decode into, with github.com/google/jsonschema-go: field names
// and types from the struct, descriptions from `jsonschema:"..."` tags,
// bounds and enums from `schema:"..."` tags, and a field required unless
// its json tag says omitempty. [Registry.Execute] checks every call's
// arguments against the tool's schema before the tool runs and answers a
// call that breaks it with an [*ArgumentError] naming the argument and
// what it must be; a null counts as an absent argument.
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
// # Untrusted content
//
// Results that carry text from outside joshbot (files, web pages and
// search results, command output, memory search) are fenced with their
// source by sandbox/fence, which also defangs joshbot's prompt tags inside
// them. A tool says so with the optional [Untrusted] ability, and says
// which calls act on the world with [Actor]. [Registry.Execute] marks the
// turn's [Taint] (installed by the agent with [WithTaint]) after such a
// result; while it is marked, every call that acts is put to the human
// approver on the context and refused with [ErrUntrustedAction] when
// nobody approves (cron, webhooks, piped runs). Writes below [ScratchDir]
// do not act. Independently of taint, write_file and edit_file need a
// human for the identity files and skills/, and never write MEMORY.md or
// HISTORY.md ([ErrProtectedFile]). Files are read only when regular: a
// FIFO, device or socket is refused without blocking.
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
// return only what belongs to its scope: the same person's conversations
// on any channel when the memory has a scope resolver
// (memory.LongTermOptions.Scope), otherwise that conversation alone.
// Nothing another person said is returned.
//
// # Web
//
// [NewWebFetch] fetches public http(s) URLs only: a host that is, or
// resolves to, a loopback, private, link-local or otherwise non-public
// address is refused before the request, and again at dial time against
// the address actually connected to, which covers redirects and DNS
// rebinding. The guard is package
// github.com/joshbot/joshbot/sandbox/egress, the one that channel
// attachment downloads and the MCP client's HTTP servers go through too.
// [RegisterWebSearch] adds web_search and its aliases web_code,
// web_company and web_research, falling back across [SearchBackend]s in
// order, each under its share of what is left of the turn: typically
// [NewExaCLI] (an exa executable), [NewExaMCP] (Exa's tools on an MCP
// server, found through [MCPTools]), [NewExa] (the Exa API) and
// [NewDuckDuckGo], whose answer after the others failed is marked
// degraded. The default endpoints are reached through the same guard.
//
// # One file tool, and profiles
//
// [RegisterFilesystemTool] adds the filesystem tool, which runs the file
// tool its operation argument names through the registry.
// [RegisterSubagentProfiles] adds subagent_profiles, which edits the
// subagent profiles over [ConfigAccess], each write approved by a human.
package tools
