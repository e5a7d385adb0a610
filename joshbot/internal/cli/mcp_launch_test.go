package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/providers"
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

// A daemon records its MCP servers' running state (state, restarts, last
// error) in the health file, and `status` shows it.
func TestStatusShowsRunningMCPState(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	withMCP(t, cfgPath, map[string]config.MCPServer{"hung": {Command: "sleep", Args: []string{"300"}}})
	home := filepath.Dir(cfgPath)

	m := mcpclient.NewManager(&mcpclient.Options{HandshakeTimeout: 200 * time.Millisecond})
	defer m.Close()
	if err := m.Launch([]mcpclient.Server{{Name: "hung", Command: "sleep", Args: []string{"300"}}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); m.Status()[0].State != mcpclient.StateFailed; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server state %+v", m.Status()[0])
		}
	}
	// What a daemon's runtime records is what status, another process,
	// reads.
	rt := &runtime.Runtime{Home: home, Health: providers.NewHealth(nil), MCP: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	rt.StartHealthFile(context.Background())() // writes at start and at stop

	r := runCLI(t, "", "--config", cfgPath, "status")
	if !strings.Contains(r.stdout, "running: failed, restarts 0 of 3") || !strings.Contains(r.stdout, "handshake: no answer within 200ms") {
		t.Fatalf("status does not show the running MCP state:\n%s", r.stdout)
	}
	r = runCLI(t, "", "--config", cfgPath, "--output", "json", "status")
	var doc struct {
		Raw []map[string]any `json:"mcp_servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Raw) != 1 || doc.Raw[0]["state"] != "failed" || doc.Raw[0]["restart_budget"] != float64(3) {
		t.Fatalf("status json: %v %v", err, doc.Raw)
	}
}
