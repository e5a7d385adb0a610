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
//	     |
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
//	tuning, workspace, footprint, onboard, report, termsafe, injection (its
//	tests only), soaktest (tests only: it drives the built binary from
//	outside)
//	                    leaves: import no package drawn above them
//
// cmd/joshbot stays under a hundred lines; a package over about 2,500
// lines of code is a sign that a concept wants its own package.
package joshbot
