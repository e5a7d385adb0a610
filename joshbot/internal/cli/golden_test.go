package cli

// The golden files of the command line: every --output json document, the
// files of `sessions export`, and the SSE stream of `serve`, recorded from
// the in-process entry point run(...) before the command tree was split
// into packages, so the split can prove it changed no byte a user or a
// script reads. This file is self-contained (it shares no helper with the
// other tests of the package) so it can move with the command line.
//
//	go test -run TestGolden -update   # record testdata/golden/*

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	jrt "github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenFixture is a joshbot home with something in every store a report
// reads: a config with profiles, a Telegram token, MCP servers and a
// scripted provider; sessions; incidents; a workspace skill.
type goldenFixture struct {
	dir, cfgPath string
	srv          *providertest.Server
	// cronID is the scheduled job's id, random per run.
	cronID string
}

const goldenConfig = `{"schema_version":1,
  "agents":{"defaults":{"provider":"custom","model":"scripted-model","learning":"off"}},
  "providers":{"custom":{"api_base":"%URL%"}},
  "default_profile":"local",
  "profiles":{
    "local":{"model":"custom/local-model","description":"the scripted server"},
    "work":{"model":"groq/llama-3.3-70b-versatile","api_key_env":"JOSHBOT_GOLDEN_WORK"},
    "lab":{"model":"ollama/qwen3","api_base":"http://ops:pw@lab.internal:11434/v1","disabled":true}
  },
  "channels":{"telegram":{"token_env":"JOSHBOT_GOLDEN_TG"}},
  "api":{"listen":"127.0.0.1:0","api_keys":["sk-golden-serve-key-0123"]},
  "mcp":{"servers":{
    "files":{"command":"/nonexistent/joshbot-golden-mcp","args":["-y","server"],"env":{"TOKEN":"sk-abcdefghijklmnopqrstuvwxyz"}},
    "web":{"url":"https://mcp.example.com/mcp","enabled":false}
  }}}`

// goldenEnv hides the machine's credentials and JOSHBOT_ settings so the
// documents depend only on the fixture.
func goldenEnv(t *testing.T) {
	t.Helper()
	for _, s := range providers.Known() {
		if s.KeyEnv != "" {
			t.Setenv(s.KeyEnv, "")
		}
	}
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "JOSHBOT_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	t.Setenv("JOSHBOT_GOLDEN_WORK", "sk-live-do-not-print-0123456789")
	t.Setenv("JOSHBOT_GOLDEN_TG", "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef")
}

func newGoldenFixture(t *testing.T) *goldenFixture {
	t.Helper()
	goldenEnv(t)
	f := &goldenFixture{dir: t.TempDir(), srv: providertest.NewServer(t)}
	f.cfgPath = filepath.Join(f.dir, "config.json")
	if err := os.WriteFile(f.cfgPath, []byte(strings.ReplaceAll(goldenConfig, "%URL%", f.srv.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(f.dir, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, s := range []*memory.Session{
		{Key: "telegram:42", Messages: []memory.Message{
			{Role: "user", Content: "my key is sk-abcdefghijklmnopqrstuvwx, remember the Blue door", Time: ts},
			{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{\"path\":\"a```b\"}"}}, Time: ts.Add(time.Second)},
			{Role: "tool", ToolCallID: "c1", Name: "read_file", Content: "door colour: blue", Time: ts.Add(2 * time.Second)},
			{Role: "assistant", Content: "The door is **blue**.", Time: ts.Add(3 * time.Second)},
		}},
		{Key: "cli:default", Messages: []memory.Message{
			{Role: "user", Content: "paint the BLUE fence", Time: ts.Add(time.Hour)},
		}},
	} {
		if err := store.Save(s); err != nil {
			t.Fatal(err)
		}
		p, _ := store.Path(s.Key)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	log, err := agent.OpenIncidentLog(filepath.Join(f.dir, "incidents.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	log.Record(agent.Incident{Time: ts, Kind: "turn_timeout", Session: "telegram:42", Provider: "custom", Model: "scripted-model", Iterations: 3, ToolCalls: 2, Error: "turn exceeded 5m0s"})
	log.Record(agent.Incident{Time: ts.Add(time.Minute), Kind: "llm_failure", Session: "cli:default", Provider: "custom", Model: "scripted-model", Iterations: 1, Error: "upstream 500"})
	jobs, err := cron.OpenStore(filepath.Join(f.dir, jrt.CronFile))
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobs.Add(context.Background(), tools.CronJob{Message: "water the plants", SessionKey: "telegram:42", Channel: "telegram", ChatID: "42", Next: ts.Add(24 * time.Hour), Every: 24 * time.Hour, Created: ts})
	if err != nil {
		t.Fatal(err)
	}
	f.cronID = job.ID
	skill := filepath.Join(f.dir, "workspace", "skills", "weekly-review")
	if err := os.MkdirAll(skill, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: weekly-review\ndescription: Summarise the week's notes every Friday\n---\nRead notes/*.md and write a summary.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// normalize replaces what differs between runs and machines: the fixture's
// directory, the scripted server's address, the Go version, the kernel's
// Landlock support, and times that are not the fixture's own.
func (f *goldenFixture) normalize(s string) string {
	srvURL := strings.TrimSuffix(f.srv.URL(), "/v1")
	s = strings.ReplaceAll(s, srvURL, "http://PROVIDER")
	s = strings.ReplaceAll(s, strings.TrimPrefix(srvURL, "http://"), "PROVIDER")
	s = strings.ReplaceAll(s, f.dir, "$HOME")
	if u, err := os.UserHomeDir(); err == nil && u != "/" {
		s = strings.ReplaceAll(s, tildeOf(f.dir, u), "$HOME")
	}
	s = strings.ReplaceAll(s, runtime.Version(), "GOVERSION")
	s = strings.ReplaceAll(s, `"arch": "`+runtime.GOARCH+`"`, `"arch": "ARCH"`)
	if f.cronID != "" {
		s = strings.ReplaceAll(s, f.cronID, "JOBID")
	}
	s = replaceShellObject(s)
	s = goldenLandlockRE.ReplaceAllString(s, `"SHELL CONFINEMENT ON THIS KERNEL"`)
	s = goldenNowRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "2026-02-03") {
			return m // the fixture's own clock
		}
		return "TIME"
	})
	return s
}

// goldenLandlockRE matches what a report says about this kernel's Landlock
// (preflight's "shell" object, a string elsewhere): it differs between
// machines.
var goldenLandlockRE = regexp.MustCompile(`(?i)"[^"\n]*landlock[^"\n]*"`)

// replaceShellObject replaces each preflight "shell" object, nested layers
// and all, with a placeholder: what it says depends on the kernel.
func replaceShellObject(s string) string {
	const key = `"shell": {`
	var b strings.Builder
	for {
		i := strings.Index(s, key)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(`"shell": "SHELL CONFINEMENT ON THIS KERNEL"`)
		depth, j := 0, i+len(key)-1
		inString := false
		for ; j < len(s); j++ {
			c := s[j]
			switch {
			case inString && c == '\\':
				j++
			case c == '"':
				inString = !inString
			case !inString && c == '{':
				depth++
			case !inString && c == '}':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		s = s[min(j+1, len(s)):]
	}
}

// goldenNowRE matches RFC 3339 and DateTime stamps.
var goldenNowRE = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)

func tildeOf(p, home string) string {
	if rest, ok := strings.CutPrefix(p, home); ok {
		return "~" + rest
	}
	return "\x00" // matches nothing
}

// goldenRun runs the command line in-process and returns stdout, failing
// the test on another exit code than want.
func goldenRun(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	if code != want {
		t.Fatalf("joshbot %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String()
}

// checkGolden compares got with testdata/golden/name, or records it under
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to record it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed:\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n- %s\n+ %s\n", i+1, wl, gl)
			if shown++; shown == 10 {
				break
			}
		}
	}
	return b.String()
}

// TestGoldenJSONDocuments records every document the command line prints
// with --output json (or its own --output/--json flag).
func TestGoldenJSONDocuments(t *testing.T) {
	f := newGoldenFixture(t)
	for _, tt := range []struct {
		name string
		code int
		args []string
	}{
		{"status.json", 0, []string{"--output", "json", "status"}},
		{"configure-list.json", 0, []string{"--output", "json", "configure", "--list"}},
		{"auth-status.json", 0, []string{"--output", "json", "auth", "status"}},
		{"preflight.json", 0, []string{"--output", "json", "preflight"}},
		{"preflight-profile-work.json", 0, []string{"--output", "json", "preflight", "--profile", "work"}},
		{"profiles-list.json", 0, []string{"--output", "json", "profiles", "list"}},
		{"tuning-status.json", 0, []string{"--output", "json", "tuning", "status"}},
		{"incidents-list.json", 0, []string{"--output", "json", "incidents", "list"}},
		{"incidents-list-flag.json", 0, []string{"incidents", "list", "--json", "-n", "1"}},
		{"incidents-summary.json", 0, []string{"--output", "json", "incidents", "summary"}},
		{"skills-list.json", 0, []string{"--output", "json", "skills", "list"}},
		{"mcp-list.json", 0, []string{"mcp", "list", "--output", "json"}},
		{"mcp-list-global.json", 0, []string{"--output", "json", "mcp", "list"}},
		{"sessions-list.json", 0, []string{"--output", "json", "sessions", "list"}},
		{"sessions-show.json", 0, []string{"--output", "json", "sessions", "show", "telegram:42"}},
		{"sessions-show-last.json", 0, []string{"--output", "json", "sessions", "show", "telegram:42", "--last", "1"}},
		{"sessions-search.json", 0, []string{"--output", "json", "sessions", "search", "blue"}},
		{"memory-status.json", 0, []string{"--output", "json", "memory", "status"}},
		{"cron-list.json", 0, []string{"--output", "json", "cron", "list"}},
		{"version.json", 0, []string{"--output", "json", "version"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := goldenRun(t, tt.code, append([]string{"--config", f.cfgPath}, tt.args...)...)
			if !json.Valid([]byte(got)) {
				t.Fatalf("not one JSON document:\n%s", got)
			}
			checkGolden(t, tt.name, f.normalize(got))
		})
	}
}

// TestGoldenTextReports records the text form of the reports whose JSON
// form is recorded above and whose text was not otherwise checked, so the
// move to documents is seen to keep what a person reads.
func TestGoldenTextReports(t *testing.T) {
	f := newGoldenFixture(t)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"profiles-list.txt", []string{"profiles", "list"}},
		{"sessions-show.txt", []string{"sessions", "show", "telegram:42"}},
		{"sessions-search.txt", []string{"sessions", "search", "blue"}},
		{"memory-status.txt", []string{"memory", "status"}},
		{"cron-list.txt", []string{"cron", "list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := f.normalize(goldenRun(t, 0, append([]string{"--config", f.cfgPath}, tt.args...)...))
			// Column widths follow the temporary directory's and the
			// server's port's lengths: compare the columns, not the padding.
			checkGolden(t, tt.name, goldenPaddingRE.ReplaceAllString(got, "  "))
		})
	}
}

// goldenPaddingRE matches the padding between a text table's columns.
var goldenPaddingRE = regexp.MustCompile(` {2,}`)

// TestGoldenJSONErrorDocuments records the documents of a failed report:
// a config that does not exist, and one that does not parse.
func TestGoldenJSONErrorDocuments(t *testing.T) {
	goldenEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema_version":1,"agents":`), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tt := range []struct {
		name, cfg string
		args      []string
	}{
		{"error-preflight-missing.json", missing, []string{"preflight"}},
		{"error-profiles-list-missing.json", missing, []string{"profiles", "list"}},
		{"error-status-broken.json", bad, []string{"status"}},
		{"error-profiles-list-broken.json", bad, []string{"profiles", "list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"--config", tt.cfg, "--output", "json"}, tt.args...), strings.NewReader(""), &out, &errb)
			got := strings.ReplaceAll(out.String(), dir, "$DIR")
			got = fmt.Sprintf("exit %d\n%s", code, got)
			checkGolden(t, tt.name, got)
		})
	}
}

// TestGoldenSessionsExport records both files `sessions export` writes,
// and the table of `sessions list`.
func TestGoldenSessionsExport(t *testing.T) {
	f := newGoldenFixture(t)
	checkGolden(t, "sessions-list.txt", f.normalize(goldenRun(t, 0, "--config", f.cfgPath, "sessions", "list")))
	out := t.TempDir()
	goldenRun(t, 0, "--config", f.cfgPath, "sessions", "export", "telegram:42", "--out", out)
	for _, name := range []string{"telegram_42.md", "telegram_42.manifest.json"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(f.normalize(string(b)), out, "$OUT")
		checkGolden(t, "export-"+name+map[bool]string{true: ".txt", false: ""}[strings.HasSuffix(name, ".md")], got)
	}
}

// goldenIDRE matches the ids and clocks of a chat completion stream.
var goldenIDRE = regexp.MustCompile(`"(id|created|system_fingerprint)":("[^"]*"|\d+)`)

// TestGoldenServeSSE records the server-sent events of one streamed,
// tool-calling chat completion through `joshbot serve`.
func TestGoldenServeSSE(t *testing.T) {
	f := newGoldenFixture(t)
	if err := os.WriteFile(filepath.Join(f.dir, "workspace", "notes.md"), []byte("the answer is 42"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &goldenBuffer{}, &goldenBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--config", f.cfgPath, "--log-level", "warn", "serve"}, strings.NewReader(""), stdout, stderr)
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("joshbot serve did not stop")
		}
	}()
	listen := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); {
		if m := listen.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("joshbot serve exited %d: %s%s", code, stdout, stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if base == "" {
		t.Fatalf("joshbot serve did not report its address: %s%s", stdout, stderr)
	}
	f.srv.Enqueue(
		providertest.Reply{Content: "Let me look. ", ToolCalls: []providers.ToolCall{providertest.Call("read_file", `{"path":"notes.md"}`)}},
		providertest.Reply{Content: "The notes say **42**.", Chunks: 3},
	)
	req, err := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(
		`{"model":"gpt-4","stream":true,"user":"golden","messages":[{"role":"user","content":"read my notes"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-golden-serve-key-0123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%d %s\n\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	got = goldenIDRE.ReplaceAllString(got, `"$1":"X"`)
	checkGolden(t, "serve-chat-stream.sse.txt", f.normalize(got))
}

// goldenBuffer is a bytes.Buffer safe for a writer and a poller.
type goldenBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *goldenBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *goldenBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
