// Package mcpclient hosts Model Context Protocol servers on behalf of an
// agent, safely enough that another Go program can import it for the same
// job. It is built on the official MCP Go SDK.
//
// A [Manager] starts each declared [Server], a program spoken to over stdio
// or a Streamable HTTP endpoint, reads the tools it advertises, and offers
// them as [Tool] values named mcp__<server>__<tool> only when an operator
// has approved exactly that manifest in a [TrustStore]:
//
//	m := mcpclient.NewManager(&mcpclient.Options{Trust: mcpclient.OpenTrustStore(path)})
//	defer m.Close()
//	m.Start(ctx, []mcpclient.Server{{Name: "fs", Command: "mcp-server-filesystem", Args: []string{dir}}})
//	for _, t := range m.Tools() {
//		registry.Register(t) // Name, Description, Parameters, Execute
//	}
//
// # Trust
//
// Approval is bound to [Manifest.Hash], a SHA-256 over every tool's name,
// description and input schema, sorted and length-prefixed. A server that
// advertises anything else, at start, after a restart or in a
// notifications/tools/list_changed mid-session, is revoked: its tools stop
// working, nothing of the new list reaches the model, and the revocation is
// recorded so the server must be approved again. A nil or unreadable store
// trusts nothing.
//
// Tools already handed out keep answering, with an error that says they are
// no longer available and how to approve the server again. A program that
// registered them should take them out when [Options.OnWithdraw] reports the
// server, as it does once for a revoked server and for one that failed for
// good, so the model stops being offered tools that can only fail.
//
// # Bounds
//
// Start, handshake and tools/list are bounded together (15 s by default) and
// a server that fails them is recorded and skipped without affecting the
// others. Each call is bounded (60 s by default, per server). A result
// reaches the model fenced as untrusted tool output and cut at
// [MaxResult] characters with a visible marker; a description is cut at
// [MaxDescription]; a single message over [MaxMessage] bytes kills the
// connection. joshbot's prompt envelope tags are defanged ([Defang]) in
// every description, schema and result.
//
// # Processes
//
// A server process gets the sandbox module's screened environment (no
// provider key reaches it) plus the variables declared for it, runs in a
// process group of its own, and is reaped by the Manager whether it exits,
// is stopped, or outlives its welcome: [Manager.Close] stops every group
// and waits. A server that dies mid-session is restarted once, after a
// delay, and its tools say so meanwhile.
//
// # Healing
//
// A call that gets no answer within its bound marks its server
// [StateSuspect]. The next call first pings it ([Options.HealthTimeout]):
// a server that answers is kept; one that does not is wedged, so its whole
// process group is killed and it is started again, and it must advertise
// the manifest it had. Restarts are budgeted ([Options.RestartBudget] per
// [Options.RestartWindow]); past the budget the server stays down until
// the oldest restart leaves the window. [Manager.Status] shows the state,
// the restarts used, the last error and when a server may be retried.
//
// # Starting without waiting
//
// [Manager.Launch] starts servers in the background instead of waiting for
// their handshakes, so a program's first model request goes out at once. A
// server whose manifest is in [Options.ManifestCache], approved by the trust
// store, has its tools offered at once; a call to one waits for the server,
// and one that never comes up is withdrawn. Other servers' tools go to
// [Options.OnReady] when they come up. A call waits only for the server it
// calls.
//
// # Streamable HTTP
//
// A URL server gets the same trust and bounds; its connections go
// through the one outbound address guard, package
// github.com/joshbot/joshbot/sandbox/egress, which refuses loopback,
// private and link-local addresses when dialling, on the socket and on
// every redirect, unless the server's AllowPrivate is set.
package mcpclient
