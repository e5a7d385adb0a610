package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/spf13/cobra"
)

// parse runs cmd on args with its output discarded and reports the error.
func parse(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// TestAgentFlags checks the agent command's flag parsing alone: no config
// is read and no runtime is loaded.
func TestAgentFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		want    agentOptions
		wantErr string
	}{
		{name: "conversation", args: nil, want: agentOptions{Session: defaultSession}},
		{name: "one shot", args: []string{"-m", "hi", "-s", "cli:work"}, want: agentOptions{Message: "hi", OneShot: true, Session: "cli:work", SessionSet: true}},
		{name: "continue", args: []string{"-c", "--message=again"}, want: agentOptions{Message: "again", OneShot: true, Session: defaultSession, Continue: true}},
		{name: "continue a named session", args: []string{"-c", "-s", "cli:x"}, want: agentOptions{Session: "cli:x", SessionSet: true, Continue: true}},
		{name: "empty message", args: []string{"-m", "  "}, wantErr: "-m/--message is empty"},
		{name: "stray argument", args: []string{"hello"}, wantErr: "unknown command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got *agentOptions
			err := parse((&app{}).newAgentCommand(func(_ context.Context, o *agentOptions) error { got = o; return nil }), tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || got != nil {
					t.Fatalf("err %v, ran %v; want an error with %q and no run", err, got != nil, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, *got); d != "" {
				t.Fatalf("options (-want +got):\n%s", d)
			}
		})
	}
}

func TestServeFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want serveOptions
	}{
		{nil, serveOptions{}},
		{[]string{"--listen", "127.0.0.1:9000"}, serveOptions{Listen: "127.0.0.1:9000", ListenSet: true}},
		// An empty --listen is a choice too: it replaces api.listen.
		{[]string{"--listen="}, serveOptions{ListenSet: true}},
	} {
		var got *serveOptions
		if err := parse((&app{}).newServeCommand(func(_ context.Context, o *serveOptions) error { got = o; return nil }), tt.args...); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, *got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, d)
		}
	}
}

func TestGatewayFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 30 * time.Second},
		{[]string{"--grace", "5s"}, 5 * time.Second},
	} {
		var got *gatewayOptions
		if err := parse((&app{}).newGatewayCommand(func(_ context.Context, o *gatewayOptions) error { got = o; return nil }), tt.args...); err != nil {
			t.Fatal(err)
		}
		if got.Grace != tt.want {
			t.Errorf("%q: grace %v, want %v", tt.args, got.Grace, tt.want)
		}
	}
	if err := parse((&app{}).newGatewayCommand(func(context.Context, *gatewayOptions) error { return nil }), "--grace", "soon"); err == nil {
		t.Fatal("a bad --grace was accepted")
	}
}

func TestOnboardFlags(t *testing.T) {
	var got *onboard.Choices
	run := func(_ context.Context, c *onboard.Choices) error { got = c; return nil }
	if err := parse((&app{}).newOnboardCommand(run)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(onboard.Choices{OllamaURL: "http://localhost:11434", Sandbox: "auto"}, *got); d != "" {
		t.Fatalf("defaults (-want +got):\n%s", d)
	}
	args := []string{"--provider", "custom", "--model", "m", "--api-base", "http://h/v1", "--api-key-env", "K", "--ollama-url", "http://o", "--shell-sandbox", "off"}
	if err := parse((&app{}).newOnboardCommand(run), args...); err != nil {
		t.Fatal(err)
	}
	want := onboard.Choices{Provider: "custom", Model: "m", APIBase: "http://h/v1", APIKeyEnv: "K", OllamaURL: "http://o", Sandbox: "off"}
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("flags (-want +got):\n%s", d)
	}
	// There is no flag for the key itself: it would land in shell history.
	if err := parse((&app{}).newOnboardCommand(run), "--api-key", "sk-x"); err == nil {
		t.Fatal("--api-key was accepted")
	}
}
