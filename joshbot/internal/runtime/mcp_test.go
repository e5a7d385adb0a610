package runtime

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/tools"
)

// fakeMCPTool stands in for an MCP server's tool in the registry.
type fakeMCPTool struct{ name string }

func (f fakeMCPTool) Name() string                { return f.name }
func (f fakeMCPTool) Description() string         { return "fake" }
func (f fakeMCPTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeMCPTool) Execute(context.Context, json.RawMessage) (string, error) {
	return "ran " + f.name, nil
}

// TestWithdrawalsReachWrappedRegistries covers serve and gateway, which
// hand the agent a wrapped copy of the registry: a withdrawal before or
// after the copy is made leaves the copy too.
func TestWithdrawalsReachWrappedRegistries(t *testing.T) {
	has := func(reg *tools.Registry, name string) bool {
		for _, d := range reg.Definitions() {
			if d.Function.Name == name {
				return true
			}
		}
		return false
	}
	reg := tools.NewRegistry()
	for _, n := range []string{"mcp__a__x", "mcp__b__y", "mcp__b__z"} {
		if err := reg.Register(fakeMCPTool{n}); err != nil {
			t.Fatal(err)
		}
	}
	w := &mcpWithdrawals{log: slog.New(slog.NewTextHandler(io.Discard, nil)), gone: map[string]string{}, regs: []*tools.Registry{reg}}
	// Revoked before the wrapped copy exists.
	w.withdraw(mcpclient.Withdrawal{Server: "a", State: mcpclient.StateRevoked, Reason: "its tools changed mid-session (added evil)", Tools: []string{"mcp__a__x"}})
	wrapped, err := ProgressTools(reg)
	if err != nil {
		t.Fatal(err)
	}
	// The copy can be made while a withdrawal lands; track cleans it.
	if err := wrapped.Register(fakeMCPTool{"mcp__a__x"}); err != nil {
		t.Fatal(err)
	}
	w.track(wrapped, ProgressTools)
	if has(reg, "mcp__a__x") || has(wrapped, "mcp__a__x") || !has(wrapped, "mcp__b__y") {
		t.Fatalf("after the first withdrawal: %v / %v", reg.Names(), wrapped.Names())
	}
	_, err = wrapped.Execute(context.Background(), "mcp__a__x", nil)
	if err == nil || !strings.Contains(err.Error(), "joshbot mcp trust a") || strings.Contains(err.Error(), "evil") {
		t.Fatalf("call after revocation: %v", err)
	}
	// Failed after the copy exists.
	w.withdraw(mcpclient.Withdrawal{Server: "b", State: mcpclient.StateFailed, Reason: "stopped again after its one restart (its process exit status 3): restart joshbot to try again", Tools: []string{"mcp__b__y", "mcp__b__z"}})
	for _, r := range []*tools.Registry{reg, wrapped} {
		if r.Len() != 0 || len(r.Definitions()) != 0 {
			t.Fatalf("tools left: %v", r.Names())
		}
	}
	_, err = wrapped.Execute(context.Background(), "mcp__b__z", nil)
	if want := `tool mcp__b__z is no longer available: mcp server "b" failed: stopped again after its one restart (its process exit status 3): restart joshbot to try again`; err == nil || err.Error() != want {
		t.Fatalf("call after failure: %v\nwant %s", err, want)
	}
}

// Tools of a server that comes up after launch reach every tracked
// registry, wrapped the way that registry wraps its tools (serve's and
// the gateway's progress reports), and skip what was withdrawn.
func TestLateMCPToolsReachWrappedRegistries(t *testing.T) {
	reg := tools.NewRegistry()
	w := &mcpWithdrawals{log: slog.New(slog.NewTextHandler(io.Discard, nil)), gone: map[string]string{"mcp__c__gone": "withdrawn"}}
	w.track(reg, nil)
	wrapped, err := ProgressTools(reg)
	if err != nil {
		t.Fatal(err)
	}
	w.track(wrapped, ProgressTools)
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
