// Package sandbox runs untrusted commands with as little reach as the host
// allows. It is a leaf module with no dependency on the rest of joshbot, so
// any Go program that executes commands on behalf of someone else can import
// it.
//
// It will hold:
//
//   - the child environment: an allowlist of variables a child process may
//     see, screened a second time against secret-shaped names, so provider
//     keys never reach a shell command or an MCP server;
//   - command screening: a deny list, and an allowlist mode that refuses any
//     construct able to start a second command;
//   - confinement: Landlock on Linux through a re-exec helper, and a
//     deny-by-default Seatbelt profile on macOS;
//   - the human approval gate, carried on the request context and denying
//     whenever no human can be asked.
//
// This release defines the module and its place in the workspace; the
// features above arrive in the sandbox release that follows.
package sandbox
