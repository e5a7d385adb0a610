package statecmd

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
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
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

// The flags tests build each command on a factory that fails the test
// when used, with a runF that captures the options: they prove what each
// flag and argument sets and its default, and that the Factory parts the
// run function needs are wired, without touching any stored state.

func TestSessionsListFlags(t *testing.T) {
	checkFlags(t, newSessionsListCmd, []flagCase[sessionsListOptions]{
		{args: nil, want: sessionsListOptions{}},
		{args: []string{"x"}, wantErr: "unknown command"},
	})
}

func TestSessionsShowFlags(t *testing.T) {
	checkFlags(t, newSessionsShowCmd, []flagCase[sessionsShowOptions]{
		{args: []string{"cli:default"}, want: sessionsShowOptions{Key: "cli:default"}},
		{args: []string{"cli:a", "--last", "5"}, want: sessionsShowOptions{Key: "cli:a", Last: 5}},
		{args: []string{"cli:a", "--last", "-1"}, wantErr: "--last -1"},
		{args: nil, wantErr: "accepts 1 arg"},
	})
}

func TestSessionsSearchFlags(t *testing.T) {
	checkFlags(t, newSessionsSearchCmd, []flagCase[sessionsSearchOptions]{
		{args: []string{"deploy", "key"}, want: sessionsSearchOptions{Query: "deploy key", Limit: memory.DefaultSearchLimit}},
		{args: []string{"x", "--limit", "3"}, want: sessionsSearchOptions{Query: "x", Limit: 3}},
		{args: []string{"x", "--limit", "0"}, wantErr: "--limit 0"},
		{args: nil, wantErr: "requires at least 1 arg"},
	})
}

func TestSessionsPruneFlags(t *testing.T) {
	checkFlags(t, newSessionsPruneCmd, []flagCase[sessionsPruneOptions]{
		{args: []string{"cli:old"}, want: sessionsPruneOptions{Key: "cli:old"}},
		{args: []string{"--older-than", "30d", "--force"}, want: sessionsPruneOptions{OlderThan: "30d", Force: true}},
		{args: nil, wantErr: "either a session id or --older-than"},
		{args: []string{"cli:old", "--older-than", "2w"}, wantErr: "not both"},
	})
}

func TestSessionsNewFlags(t *testing.T) {
	checkFlags(t, newSessionsNewCmd, []flagCase[sessionsNewOptions]{
		{args: []string{"cli:a"}, want: sessionsNewOptions{Key: "cli:a"}},
		{args: []string{"cli:a", "--force"}, want: sessionsNewOptions{Key: "cli:a", Force: true}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
}

func TestSessionsExportFlags(t *testing.T) {
	checkFlags(t, newSessionsExportCmd, []flagCase[sessionsExportOptions]{
		{args: []string{"cli:a"}, want: sessionsExportOptions{Key: "cli:a", Out: "."}},
		{args: []string{"cli:a", "--out", "/tmp/x"}, want: sessionsExportOptions{Key: "cli:a", Out: "/tmp/x"}},
	})
}

func TestMemoryFlags(t *testing.T) {
	checkFlags(t, newMemoryStatusCmd, []flagCase[memoryStatusOptions]{
		{args: nil, want: memoryStatusOptions{}},
		{args: []string{"x"}, wantErr: "unknown command"},
	})
	checkFlags(t, newMemoryConsolidateCmd, []flagCase[memoryConsolidateOptions]{
		{args: nil, want: memoryConsolidateOptions{}},
		{args: []string{"x"}, wantErr: "unknown command"},
	})
}

func TestCronFlags(t *testing.T) {
	checkFlags(t, newCronListCmd, []flagCase[cronListOptions]{{args: nil, want: cronListOptions{}}})
	checkFlags(t, newCronRemoveCmd, []flagCase[cronRemoveOptions]{
		{args: []string{"job1"}, want: cronRemoveOptions{ID: "job1"}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
	checkFlags(t, newCronRunCmd, []flagCase[cronRunOptions]{
		{args: nil, want: cronRunOptions{}},
		{args: []string{"now"}, wantErr: "unknown command"},
	})
}

func TestIncidentsFlags(t *testing.T) {
	checkFlags(t, newIncidentsListCmd, []flagCase[incidentsListOptions]{
		{args: nil, want: incidentsListOptions{}},
		{args: []string{"--json", "-n", "4"}, want: incidentsListOptions{JSON: true, Limit: 4}},
		{args: []string{"--limit=2"}, want: incidentsListOptions{Limit: 2}},
	})
	checkFlags(t, newIncidentsSummaryCmd, []flagCase[incidentsSummaryOptions]{{args: nil, want: incidentsSummaryOptions{}}})
	checkFlags(t, newIncidentsClearCmd, []flagCase[incidentsClearOptions]{
		{args: nil, want: incidentsClearOptions{}},
		{args: []string{"-f"}, want: incidentsClearOptions{Force: true}},
		{args: []string{"--force"}, want: incidentsClearOptions{Force: true}},
	})
}

func TestSkillsFlags(t *testing.T) {
	checkFlags(t, newSkillsListCmd, []flagCase[skillsListOptions]{
		{args: nil, want: skillsListOptions{}},
		{args: []string{"--json"}, want: skillsListOptions{JSON: true}},
	})
	checkFlags(t, newSkillsTrustCmd, []flagCase[skillsTrustOptions]{
		{args: []string{"deploy"}, want: skillsTrustOptions{Name: "deploy"}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
	checkFlags(t, newSkillsUntrustCmd, []flagCase[skillsUntrustOptions]{
		{args: []string{"deploy"}, want: skillsUntrustOptions{Name: "deploy"}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
}

func TestMCPFlags(t *testing.T) {
	checkFlags(t, newMCPListCmd, []flagCase[mcpListOptions]{
		{args: nil, want: mcpListOptions{Output: "text"}},
		{args: []string{"--output", "json"}, want: mcpListOptions{Output: "json"}},
		{args: []string{"--output", "yaml"}, wantErr: `--output "yaml"`},
	})
	checkFlags(t, newMCPTrustCmd, []flagCase[mcpTrustOptions]{
		{args: []string{"fs"}, want: mcpTrustOptions{Name: "fs"}},
		{args: []string{"fs", "--sha256", "abc"}, want: mcpTrustOptions{Name: "fs", SHA256: "abc"}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
	checkFlags(t, newMCPUntrustCmd, []flagCase[mcpUntrustOptions]{
		{args: []string{"fs"}, want: mcpUntrustOptions{Name: "fs"}},
		{args: nil, wantErr: "accepts 1 arg"},
	})
}

func TestTuningFlags(t *testing.T) {
	checkFlags(t, newTuningStatusCmd, []flagCase[tuningStatusOptions]{{args: nil, want: tuningStatusOptions{}}})
	checkFlags(t, newTuningResetCmd, []flagCase[tuningResetOptions]{
		{args: nil, want: tuningResetOptions{}},
		{args: []string{"all"}, wantErr: "unknown command"},
	})
}

// TestParseAge checks the --older-than spellings.
func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "12h": 12 * time.Hour} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-1h", "xd", "soon"} {
		if _, err := parseAge(in); err == nil {
			t.Errorf("parseAge(%q) accepted", in)
		}
	}
}
