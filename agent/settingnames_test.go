package agent_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// configKey matches what a program's configuration key looks like
// (agents.defaults.timeout, tools.shell_allow).
var configKey = regexp.MustCompile(`\b(agents|tools|providers|channels|mcp|api)\.[a-z_]+`)

// limitTexts runs the turns and commands whose replies name a setting and
// returns every text an importer's user could read.
func limitTexts(t *testing.T, names agent.SettingNames) []string {
	t.Helper()
	var out []string
	a, srv, _, _ := setup(t, &agent.Options{Limits: agent.LimitOptions{MaxIterations: 1}, SettingNames: names})
	srv.Enqueue(providertest.ToolCalls(providertest.Call("list_dir", `{}`)))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:names", Text: "loop"})
	if !errors.Is(err, agent.ErrIterationLimit) {
		t.Fatalf("err = %v, want ErrIterationLimit", err)
	}
	out = append(out, reply.Text, err.Error())
	for _, cmd := range []string{"/model other --global", "/agent"} {
		reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:names", Text: cmd})
		if reply != nil {
			out = append(out, reply.Text)
		}
		if err != nil {
			out = append(out, err.Error())
		}
	}
	store, err := memory.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	slow, err := agent.New(blockingProvider{}, "m", store, &agent.Options{Limits: agent.LimitOptions{Timeout: 20 * time.Millisecond}, SettingNames: names})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slow.Wait)
	reply, err = slow.Process(context.Background(), agent.Request{SessionKey: "cli:slow", Text: "hi"})
	if !errors.Is(err, agent.ErrTurnTimeout) {
		t.Fatalf("err = %v, want ErrTurnTimeout", err)
	}
	return append(out, reply.Text, err.Error())
}

// TestTextsNameTheOptionsByDefault: an importer that sets no SettingNames
// reads this package's option names, never a config key of joshbot's.
func TestTextsNameTheOptionsByDefault(t *testing.T) {
	texts := limitTexts(t, agent.SettingNames{})
	all := strings.Join(texts, "\n")
	for _, want := range []string{"LimitOptions.MaxIterations", "LimitOptions.Timeout", "the model given to agent.New", "CommandOptions.Profiles"} {
		if !strings.Contains(all, want) {
			t.Errorf("no text names %s:\n%s", want, all)
		}
	}
	for _, s := range texts {
		if k := configKey.FindString(s); k != "" {
			t.Errorf("text names the config key %s: %q", k, s)
		}
	}
}

// TestSettingNamesReachTheTexts: a program passes the keys its user edits.
func TestSettingNamesReachTheTexts(t *testing.T) {
	names := agent.SettingNames{Model: "the model key", MaxIterations: "the iterations key", Timeout: "the timeout key", Profiles: "the profiles key"}
	all := strings.Join(limitTexts(t, names), "\n")
	for _, want := range []string{"the model key", "the iterations key", "the timeout key", "the profiles key"} {
		if !strings.Contains(all, want) {
			t.Errorf("no text names %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "LimitOptions.") || strings.Contains(all, "CommandOptions.") {
		t.Errorf("a text still names an option:\n%s", all)
	}
}
