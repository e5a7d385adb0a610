package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
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
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: providers.NewHealth(nil), mcp: m}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.persistHealth(ctx, home, nil) // writes once, sees ctx done, writes again and returns

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

// Tools of a server that comes up after launch reach every tracked
// registry, wrapped the way that registry wraps its tools (serve's and
// the gateway's progress reports), and skip what was withdrawn.
func TestLateMCPToolsReachWrappedRegistries(t *testing.T) {
	reg := tools.NewRegistry()
	w := &mcpWithdrawals{log: slog.New(slog.NewTextHandler(io.Discard, nil)), gone: map[string]string{"mcp__c__gone": "withdrawn"}}
	w.track(reg, nil)
	wrapped, err := progressTools(reg)
	if err != nil {
		t.Fatal(err)
	}
	w.track(wrapped, progressTools)
	w.add("c", []tools.Tool{fakeMCPTool{"mcp__c__x"}, fakeMCPTool{"mcp__c__gone"}})
	if got, ok := reg.Get("mcp__c__x"); !ok || reflect.TypeOf(got) != reflect.TypeOf(fakeMCPTool{}) {
		t.Fatalf("base registry: %v %T", ok, got)
	}
	if got, ok := wrapped.Get("mcp__c__x"); !ok || reflect.TypeOf(got) != reflect.TypeOf(progressTool{}) {
		t.Fatalf("wrapped registry: %v %T; want the progress-wrapped tool", ok, got)
	}
	if _, ok := wrapped.Get("mcp__c__gone"); ok {
		t.Fatal("a withdrawn tool was registered")
	}
	// Already there (registered from Tools() at launch): left alone.
	w.add("c", []tools.Tool{fakeMCPTool{"mcp__c__x"}})
	if reg.Len() != 1 || wrapped.Len() != 1 {
		t.Fatalf("registries: %v / %v", reg.Names(), wrapped.Names())
	}
}
