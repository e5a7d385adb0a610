// Package joshbot is the module of the joshbot binary: the command line
// (cmd/joshbot, internal/cli), the configuration, and the wiring that
// joins the agent, providers, tools, memory, channels and HTTP API
// modules into one program.
//
// It is the only module that knows every other one; everything it holds is
// under cmd/ and internal/, so its exported surface is this comment.
//
// # Packages of the binary
//
// An arrow is "may import"; internal/archtest enforces the drawing
// (binary_test.go), file by file for the gateway.
//
//	cmd/joshbot         main: the sandbox helper check, then the command line
//	     |              (cmd/joshbot-sandbox, the dedicated sandbox helper,
//	     |              imports the sandbox module and nothing of the binary);
//	     |              it also imports internal/stackstart, the one package
//	     |              with an init function (it grows main's stack early)
//	     v
//	internal/cli        the root command, flags -> Options -> run for the
//	     |              conversation, service and config commands; no
//	     |              channel adapter, no apiserver
//	     +------------------+------------------+-----------------+
//	     v                  v                  v                 v
//	internal/gateway   internal/serve    internal/statecmd   internal/term,
//	 core: channels     the HTTP adapter  sessions, memory,   docscheck,
//	 contract only;     behind apiserver's cron, incidents,   devicelogin
//	 surface.go alone   interfaces        skills, mcp, tuning
//	 names the adapters    |                  |
//	     |                 |                  v
//	     |                 |             internal/cmdutil   the Factory every
//	     |                 |                  |             command of cli and
//	     +--------+--------+------------------+             statecmd reaches
//	              |                                         the rest through
//	              v
//	internal/runtime    Load(ctx, *Options): config, provider chain, tools,
//	              |     sandbox, MCP, memory, agent, incidents, cron, outbox
//	              v
//	internal/config, configedit, configmigrate, jsonkeys, output, redact, cron,
//	tuning, workspace, footprint, onboard, report, termsafe, stackstart,
//	injection (its tests only), soaktest (tests only: it drives the built
//	binary from outside)
//	                    leaves: import no package drawn above them
//
// # Path of a message
//
// This refines the data flow in ARCHITECTURE.md, which draws inbound
// messages through the bus. In the gateway, a channel adapter hands a
// message to channels.Router (allowlist, group addressing, dedup), which
// records it in its durable inbox before the platform is acknowledged;
// Router.Run then calls the gateway's handler, one turn at a time per
// conversation, and settles the inbox entry when the turn returns. The
// inbox, not the bus, is the inbound queue: an in-memory hop would lose
// messages on a crash, order all senders behind one another and could not
// report when a turn ended (the soak test, internal/soaktest, holds the
// gateway to per-sender order, no double runs and settle-after-turn). A
// turn's own reply goes to its adapter's Send; what the agent sends on its
// own (the message tool, cron jobs) goes through bus.PublishOutbound,
// fanned out to each adapter.
// The bus's inbound half is deprecated (bus/doc.go). The CLI and serve
// call the agent directly, as drawn.
//
// cmd/joshbot stays under a hundred lines; a package over about 2,500
// lines of code is a sign that a concept wants its own package.
package joshbot
