// Command joshbot is a self-hosted personal AI agent: it talks to any
// OpenAI-compatible LLM provider, acts through tools confined to its
// workspace, and remembers every conversation.
//
// Usage:
//
//	joshbot onboard            write ~/.joshbot/config.json and a workspace
//	joshbot agent -m "hello"   one turn, the reply on stdout
//	joshbot agent              an interactive conversation
//	joshbot preflight          would joshbot start, and with what? (dials nothing)
//	joshbot profiles list      the named model setups in the config
//	joshbot version            print the version
package main

import (
	"context"
	"os"

	"github.com/joshbot/joshbot/joshbot/internal/cli"
	"github.com/joshbot/joshbot/sandbox"
)

func main() {
	// The Landlock helper must be confined before it does any work of its
	// own, so this check comes first; for every other run it is one
	// string comparison.
	sandbox.RunHelperIfRequested()
	os.Exit(cli.Main(context.Background(), os.Args[1:], &cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
