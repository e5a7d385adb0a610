package cli

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/sandbox"
)

// parse runs cmd on args with its output discarded and reports the error.
func parse(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// testFactory is a Factory whose every part fails the test when used: a
// flags test must not reach the config, the runtime or the clock.
func testFactory(t *testing.T) *cmdutil.Factory {
	used := func(what string) { t.Helper(); t.Errorf("flag parsing used the factory's %s", what) }
	return &cmdutil.Factory{
		IO:             &cmdutil.Streams{},
		Paths:          func() (string, string, error) { used("Paths"); return "", "", nil },
		LoadConfig:     func(string, string) (*config.Config, error) { used("LoadConfig"); return nil, nil },
		RuntimeOptions: func(string, *runtime.Options) (*runtime.Options, error) { used("RuntimeOptions"); return nil, nil },
		LoadStored:     func() (*runtime.Stored, error) { used("LoadStored"); return nil, nil },
		Logger:         func() *slog.Logger { used("Logger"); return nil },
		Now:            func() time.Time { used("Now"); return time.Time{} },
		Sleep:          func(context.Context, time.Duration) error { used("Sleep"); return nil },
		Probe:          func() sandbox.Report { used("Probe"); return sandbox.Report{} },
		RawTerm:        &atomic.Bool{},
		Above:          &term.Above{},
	}
}

// flagsOnly compares Options by their flags and arguments: the Factory
// parts they hold (functions, streams, the raw-terminal flag) are checked
// by wired instead. The embedded groups of Factory parts are unexported
// types, so the fields of every type are open to the comparison.
var flagsOnly = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().Type().Kind() {
		case reflect.Func, reflect.Pointer:
			return true
		}
		return false
	}, cmp.Ignore()),
	cmp.Exporter(func(reflect.Type) bool { return true }),
}

// wired fails unless every Factory part opts holds (a function or pointer
// field, at any depth of embedding) was set by the constructor.
func wired(t *testing.T, opts any) {
	t.Helper()
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		for i := 0; i < v.NumField(); i++ {
			f, sf := v.Field(i), v.Type().Field(i)
			switch f.Kind() {
			case reflect.Struct:
				walk(f, path+sf.Name+".")
			case reflect.Func, reflect.Pointer:
				if f.IsNil() {
					t.Errorf("%T: %s%s is not set from the factory", opts, path, sf.Name)
				}
			}
		}
	}
	walk(reflect.ValueOf(opts).Elem(), "")
}

// capture returns a runF that records the options it is given, and the
// place it records them.
func capture[O any]() (func(context.Context, *O) error, **O) {
	var got *O
	return func(_ context.Context, o *O) error { got = o; return nil }, &got
}

// flagCase is one command line of a flags test: the options it should
// give, or the error it should be refused with.
type flagCase[O any] struct {
	args    []string
	want    O
	wantErr string
}

// checkFlags runs each case through the command build makes with a
// capturing runF.
func checkFlags[O any](t *testing.T, build func(*cmdutil.Factory, func(context.Context, *O) error) *cobra.Command, cases []flagCase[O]) {
	t.Helper()
	for _, tt := range cases {
		runF, got := capture[O]()
		err := parse(build(testFactory(t), runF), tt.args...)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || *got != nil {
				t.Errorf("%q: err %v, ran %v; want an error with %q and no run", tt.args, err, *got != nil, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if d := cmp.Diff(tt.want, **got, flagsOnly); d != "" {
			t.Errorf("%q: options (-want +got):\n%s", tt.args, d)
		}
		wired(t, *got)
	}
}

// TestAgentFlags checks the agent command's flag parsing alone: no config
// is read and no runtime is loaded.
func TestAgentFlags(t *testing.T) {
	checkFlags(t, newAgentCommand, []flagCase[agentOptions]{
		{args: nil, want: agentOptions{Session: defaultSession}},
		{args: []string{"-m", "hi", "-s", "cli:work"}, want: agentOptions{Message: "hi", OneShot: true, Session: "cli:work", SessionSet: true}},
		{args: []string{"-c", "--message=again"}, want: agentOptions{Message: "again", OneShot: true, Session: defaultSession, Continue: true}},
		{args: []string{"-c", "-s", "cli:x"}, want: agentOptions{Session: "cli:x", SessionSet: true, Continue: true}},
		{args: []string{"--profile", "work"}, want: agentOptions{Session: defaultSession, Profile: "work"}},
		{args: []string{"-m", "  "}, wantErr: "-m/--message is empty"},
		{args: []string{"hello"}, wantErr: "unknown command"},
	})
}

func TestServeFlags(t *testing.T) {
	checkFlags(t, newServeCommand, []flagCase[serveOptions]{
		{args: nil, want: serveOptions{}},
		{args: []string{"--listen", "127.0.0.1:9000"}, want: serveOptions{Listen: "127.0.0.1:9000", ListenSet: true}},
		// An empty --listen is a choice too: it replaces api.listen.
		{args: []string{"--listen="}, want: serveOptions{ListenSet: true}},
		{args: []string{"x"}, wantErr: "unknown command"},
	})
}

func TestGatewayFlags(t *testing.T) {
	checkFlags(t, newGatewayCommand, []flagCase[gatewayOptions]{
		{args: nil, want: gatewayOptions{Grace: 30 * time.Second}},
		{args: []string{"--grace", "5s", "--profile", "p"}, want: gatewayOptions{Grace: 5 * time.Second, Profile: "p"}},
		{args: []string{"--grace", "soon"}, wantErr: "invalid argument"},
	})
}

func TestOnboardFlags(t *testing.T) {
	checkFlags(t, newOnboardCommand, []flagCase[onboardOptions]{
		{args: nil, want: onboardOptions{Choices: onboard.Choices{OllamaURL: "http://localhost:11434", Sandbox: "auto"}}},
		{
			args: []string{"--provider", "custom", "--model", "m", "--api-base", "http://h/v1", "--api-key-env", "K", "--ollama-url", "http://o", "--shell-sandbox", "off"},
			want: onboardOptions{Choices: onboard.Choices{Provider: "custom", Model: "m", APIBase: "http://h/v1", APIKeyEnv: "K", OllamaURL: "http://o", Sandbox: "off"}},
		},
		// There is no flag for the key itself: it would land in shell history.
		{args: []string{"--api-key", "sk-x"}, wantErr: "unknown flag"},
	})
}

func TestPreflightFlags(t *testing.T) {
	checkFlags(t, newPreflightCommand, []flagCase[preflightOptions]{
		{args: nil, want: preflightOptions{}},
		{args: []string{"--profile", "cheap"}, want: preflightOptions{Profile: "cheap"}},
		{args: []string{"now"}, wantErr: "unknown command"},
	})
}

func TestStatusFlags(t *testing.T) {
	checkFlags(t, newStatusCommand, []flagCase[statusOptions]{
		{args: nil, want: statusOptions{}},
		{args: []string{"--profile", "cheap"}, want: statusOptions{Profile: "cheap"}},
		{args: []string{"all"}, wantErr: "unknown command"},
	})
}

func TestConfigureFlags(t *testing.T) {
	checkFlags(t, newConfigureCommand, []flagCase[configureOptions]{
		{args: []string{"--list"}, want: configureOptions{List: true}},
		{args: nil, wantErr: "pass --list"},
	})
}

func TestProfilesListFlags(t *testing.T) {
	checkFlags(t, newProfilesListCmd, []flagCase[profilesListOptions]{
		{args: nil, want: profilesListOptions{}},
		{args: []string{"extra"}, wantErr: "unknown command"},
	})
}

func TestAuthStatusFlags(t *testing.T) {
	checkFlags(t, newAuthStatusCmd, []flagCase[authStatusOptions]{
		{args: nil, want: authStatusOptions{}},
		{args: []string{"--profile", "p"}, want: authStatusOptions{Profile: "p"}},
	})
}

func TestAuthLoginFlags(t *testing.T) {
	checkFlags(t, newAuthLoginCmd, []flagCase[authLoginOptions]{
		{args: []string{"github-copilot"}, want: authLoginOptions{Provider: "github-copilot", GitHubURL: "https://github.com"}},
		{args: []string{"github_copilot", "--github-url", "http://ghe"}, want: authLoginOptions{Provider: "github_copilot", GitHubURL: "http://ghe"}},
		{args: []string{"openai"}, wantErr: "only github-copilot"},
		{args: nil, wantErr: "accepts 1 arg"},
	})
}

func TestDocsCheckFlags(t *testing.T) {
	checkFlags(t, newDocsCheckCmd, []flagCase[docsCheckOptions]{
		{args: nil, want: docsCheckOptions{Root: "."}},
		{args: []string{"--root", "/src", "--profile", "p"}, want: docsCheckOptions{Root: "/src", Profile: "p"}},
	})
}

func TestVersionFlags(t *testing.T) {
	checkFlags(t, newVersionCommand, []flagCase[versionOptions]{
		{args: nil, want: versionOptions{}},
		{args: []string{"--short"}, wantErr: "unknown flag"},
	})
}
