package main

import (
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// An MCP server that hangs in its handshake does not hold up a turn that
// does not use it: `agent -m` answers without waiting out the handshake
// bound (15 s), and exits without the server's graceful-stop grace.
func TestHungMCPServerDoesNotDelayAgent(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	// sleep never speaks: a server wedged before its handshake.
	withMCP(t, cfgPath, map[string]config.MCPServer{"hung": {Command: "sleep", Args: []string{"300"}}})
	srv.Enqueue(providertest.Text("answered"))
	start := time.Now()
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answered" {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("agent -m took %s with a hung MCP server it does not use", d)
	}
}
