// Package injection holds the project's prompt-injection corpus (issue 18):
// agent-level tests in which a scripted model obeys whatever instructions
// it reads (in a file, a web page, an MCP server's answer, a scheduled
// job's text, a webhook's body, a planted history entry, a command's
// output) and tries to run the shell, rewrite identity files, schedule
// jobs or call tools. Every case must end with a human asked or the call
// refused and an incident logged.
//
// The package is only tests. It lives in the joshbot module because that
// is the one module allowed to import the agent, the tools, the sandbox
// (the approver) and the MCP client together, as the binary does.
package injection
