package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// clearProviderEnv hides any real credentials of the machine running the
// tests, so detection sees only what a test sets.
func clearProviderEnv(t testing.TB) {
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
}

type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runCLIWith(t, nil, stdin, args...)
}

// runCLIWith is runCLI with seams: seams, when not nil, sets the app's
// test hooks before the command line runs.
func runCLIWith(t *testing.T, seams func(*app), stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	if seams != nil {
		seams(a)
	}
	code := a.execute(context.Background(), args)
	return result{code, out.String(), errb.String()}
}

// scriptedConfig writes a config that talks to srv and returns its path.
func scriptedConfig(t *testing.T, srv *providertest.Server) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Providers["custom"] = config.Provider{APIBase: srv.URL()}
	// Each test scripts exactly the replies of its turns; learning has
	// its own tests.
	cfg.Agents.Defaults.Learning = "off"
	p := filepath.Join(dir, "config.json")
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersion(t *testing.T) {
	r := runCLI(t, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "joshbot ") || !strings.Contains(r.stdout, runtime.Version()) {
		t.Fatalf("%+v", r)
	}
}

func TestOneShotPrintsScriptedReplyAndSavesSession(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("Hello from the script."))
	cfgPath := scriptedConfig(t, srv)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hello")
	if r.code != 0 || r.stdout != "Hello from the script.\n" {
		t.Fatalf("%+v", r)
	}
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	sess, err := store.Load(defaultSession)
	if err != nil || len(sess.Messages) != 2 || sess.Messages[0].Content != "hello" || sess.Messages[1].Content != "Hello from the script." {
		t.Fatalf("session = %+v, %v", sess, err)
	}
	if got := srv.Requests()[0].Model; got != "scripted-model" {
		t.Fatalf("model sent = %q", got)
	}
}

func TestOneShotToolCallsReachTheModel(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ws := filepath.Join(filepath.Dir(cfgPath), "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "todo.txt"), []byte("buy oat milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"todo.txt"}`)),
		providertest.ToolCalls(providertest.Call("write_file", `{"path":"scratch/done.txt","content":"oat milk bought"}`)),
		providertest.Text("Noted."),
	)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "what is on my list?")
	if r.code != 0 || r.stdout != "Noted.\n" {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, "buy oat milk") {
		t.Fatalf("read_file result did not reach the model: %+v", last)
	}
	if msgs := reqs[2].Messages; !strings.Contains(msgs[len(msgs)-1].Content, "15 bytes") {
		t.Fatalf("write_file result did not reach the model: %+v", msgs[len(msgs)-1])
	}
	// The turn read a file, so the one place it may write without a human
	// to approve (none on a piped agent -m) is scratch/.
	if b, _ := os.ReadFile(filepath.Join(ws, "scratch", "done.txt")); string(b) != "oat milk bought" {
		t.Fatalf("write_file did not write: %q", b)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), "sessions", "cli_default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 6 {
		t.Fatalf("session file holds %d lines, want 6:\n%s", len(lines), raw)
	}
}

func TestProviderFailureIsOneLineAndKeepsMessage(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Error(503, "upstream overloaded"))
	cfgPath := scriptedConfig(t, srv)
	// One scripted failure, no retries: the retry rules have their own
	// tests with an injected clock in the providers module.
	t.Setenv("JOSHBOT_PROVIDERS__CUSTOM__MAX_RETRIES", "0")
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "are you there?")
	if r.code != 1 {
		t.Fatalf("exit %d", r.code)
	}
	// The failure is also an incident, logged as its one WARN line.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `msg="turn incident" kind=llm_failure`) {
		t.Fatalf("stderr should be the incident WARN line and one error line: %q", r.stderr)
	}
	if !strings.Contains(lines[1], "custom") || !strings.Contains(lines[1], "503") {
		t.Fatalf("error line should name provider and status: %q", r.stderr)
	}
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	sess, _ := store.Load(defaultSession)
	if len(sess.Messages) != 1 || sess.Messages[0].Content != "are you there?" {
		t.Fatalf("user message lost: %+v", sess.Messages)
	}
}

func TestIterationLimitTellsTheUser(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__MAX_TOOL_ITERATIONS", "1")
	srv.Enqueue(providertest.ToolCalls(providertest.Call("list_dir", `{}`)))
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "loop")
	if r.code != 1 || !strings.Contains(r.stdout, "agents.defaults.max_tool_iterations") {
		t.Fatalf("%+v", r)
	}
}

func TestPipedConversation(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("first answer"), providertest.Text("second answer"))
	cfgPath := scriptedConfig(t, srv)
	r := runCLI(t, "hello\n\nand again\nexit\nnever sent\n", "--config", cfgPath, "agent")
	if r.code != 0 || r.stdout != "first answer\nsecond answer\n" {
		t.Fatalf("%+v", r)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
	if n := len(srv.Requests()[1].Messages); n != 4 {
		t.Fatalf("second turn sent %d messages, want system+3", n)
	}
}

func TestConfigErrors(t *testing.T) {
	clearProviderEnv(t)
	dir := t.TempDir()
	r := runCLI(t, "", "--config", filepath.Join(dir, "none.json"), "agent", "-m", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "joshbot onboard") {
		t.Fatalf("no config: %+v", r)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"schema_version\": 1,\n  \"agents\": [\n}"), 0o600)
	r = runCLI(t, "", "--config", bad, "agent", "-m", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "bad.json:4:1") {
		t.Fatalf("malformed: %+v", r)
	}
	nokey := filepath.Join(dir, "nokey.json")
	os.WriteFile(nokey, []byte(`{"schema_version":1,"agents":{"defaults":{"provider":"groq","model":"m"}}}`), 0o600)
	r = runCLI(t, "", "--config", nokey, "agent", "-m", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "providers.groq.api_key_env") || !strings.Contains(r.stderr, "JOSHBOT_PROVIDERS__GROQ__API_KEY") {
		t.Fatalf("missing key: %+v", r)
	}
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__TIMEOUT", "fast")
	r = runCLI(t, "", "--config", nokey, "agent", "-m", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "JOSHBOT_AGENTS__DEFAULTS__TIMEOUT") {
		t.Fatalf("bad override: %+v", r)
	}
	r = runCLI(t, "", "--log-level", "loud", "version")
	if r.code != 1 || !strings.Contains(r.stderr, "--log-level") {
		t.Fatalf("bad flag: %+v", r)
	}
}

func TestOnboardWithoutAnyProviderSaysWhatToSet(t *testing.T) {
	clearProviderEnv(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	r := runCLI(t, "", "--config", cfgPath, "onboard", "--ollama-url", closed.URL)
	if r.code != 1 || !strings.Contains(r.stderr, "OPENROUTER_API_KEY") || !strings.Contains(r.stderr, "Ollama") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(cfgPath); err == nil {
		t.Fatal("a config was written without a provider")
	}
}

func TestOnboardFromEnvironmentKeepsSecretOutOfFile(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("GROQ_API_KEY", "gsk_live_secret_value")
	cfgPath := filepath.Join(t.TempDir(), "home", "config.json")
	r := runCLI(t, "", "--config", cfgPath, "onboard")
	if r.code != 0 || !strings.Contains(r.stdout, "provider groq") {
		t.Fatalf("%+v", r)
	}
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("gsk_live_secret_value")) {
		t.Fatal("the API key was written into config.json")
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc["schema_version"].(float64) != 1 {
		t.Fatalf("config not valid: %v\n%s", err, raw)
	}
	fi, _ := os.Stat(cfgPath)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if ep, err := cfg.Endpoint(); err != nil || ep.APIKey != "gsk_live_secret_value" || ep.Model == "" {
		t.Fatalf("endpoint %+v, %v", ep, err)
	}
	soul := filepath.Join(filepath.Dir(cfgPath), "workspace", "SOUL.md")
	if err := os.WriteFile(soul, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GROQ_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "sk-other")
	r = runCLI(t, "", "--config", cfgPath, "onboard")
	if r.code != 0 || !strings.Contains(r.stdout, "left unchanged") {
		t.Fatalf("second onboard: %+v", r)
	}
	if again, _ := os.ReadFile(cfgPath); !bytes.Equal(again, raw) {
		t.Fatal("second onboard rewrote the config")
	}
	if b, _ := os.ReadFile(soul); string(b) != "mine" {
		t.Fatal("second onboard overwrote an identity file")
	}
}

func TestOnboardFindsLocalOllama(t *testing.T) {
	clearProviderEnv(t)
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"models":[{"name":"qwen3:4b"},{"name":"llama3.2"}]}`)
	}))
	defer ollama.Close()
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	r := runCLI(t, "", "--config", cfgPath, "onboard", "--ollama-url", ollama.URL)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := cfg.Endpoint()
	if err != nil || ep.Provider != "ollama" || ep.Model != "qwen3:4b" || ep.BaseURL != ollama.URL+"/v1" {
		t.Fatalf("endpoint %+v, %v", ep, err)
	}
}

func TestOnboardCustomNeedsBase(t *testing.T) {
	clearProviderEnv(t)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	r := runCLI(t, "", "--config", cfgPath, "onboard", "--provider", "custom", "--model", "m")
	if r.code != 1 || !strings.Contains(r.stderr, "--api-base") {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "onboard", "--provider", "mystery")
	if r.code != 1 || !strings.Contains(r.stderr, "openrouter") {
		t.Fatalf("%+v", r)
	}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds the real joshbot binary once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "joshbot-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "joshbot")
		out, err := exec.Command("go", "build", "-o", builtBin, "../../cmd/joshbot").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// TestMain lets the test binary stand in for joshbot as the sandbox helper,
// exactly as main does, and for an MCP server when mcpModeEnv is set, and
// removes the binary the tests built.
func TestMain(m *testing.M) {
	if mode := os.Getenv(mcpModeEnv); mode != "" {
		os.Exit(serveTestMCP(mode))
	}
	sandbox.RunHelperIfRequested()
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// TestBinaryEndToEnd holds a one-shot turn with the real binary against
// the scripted server, the way a user runs it.
func TestBinaryEndToEnd(t *testing.T) {
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("hi, I am joshbot"))
	cfgPath := scriptedConfig(t, srv)
	cmd := exec.Command(bin, "--config", cfgPath, "agent", "-m", "hello")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.String() != "hi, I am joshbot\n" {
		t.Fatalf("stdout = %q", stdout.String())
	}
}

// TestStartupDoesNoWork reads the runtime's init trace of `joshbot
// version`: no joshbot package may do more in init than set a few
// variables, so commands that need nothing pay for nothing.
func TestStartupDoesNoWork(t *testing.T) {
	bin := binary(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init github.com/x/y @0.1 ms, 0.002 ms clock, 64 bytes, 2 allocs
		// f[0]  f[1]          f[2] f[3] f[4] f[5] f[6] f[7] f[8] f[9] f[10]
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		lines++
		if !strings.HasPrefix(f[1], "github.com/joshbot/") {
			continue
		}
		bytesN, err1 := strconv.Atoi(f[7])
		allocs, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unreadable init trace line %q", line)
		}
		if bytesN > 2048 || allocs > 32 {
			t.Errorf("package %s does work at init: %d bytes in %d allocations", f[1], bytesN, allocs)
		}
	}
	if lines == 0 {
		t.Fatalf("no init trace lines; is GODEBUG=inittrace=1 still supported?\n%s", stderr.String())
	}
}

// TestCommandNamesAreUnique guards against a command registered twice,
// which cobra accepts and help then lists twice.
func TestCommandNamesAreUnique(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen := map[string]bool{}
		for _, sub := range c.Commands() {
			if seen[sub.Name()] {
				t.Errorf("%q has two subcommands named %q", c.CommandPath(), sub.Name())
			}
			seen[sub.Name()] = true
			walk(sub)
		}
	}
	walk((&app{}).rootCommand())
}

// TestTermHandlerOnlyWhereNeeded checks that SIGTERM is caught for the
// commands that may start processes and left alone for those that only
// print, where installing the handler would only slow start-up.
func TestTermHandlerOnlyWhereNeeded(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_HOME", t.TempDir())
	for _, tc := range []struct {
		args  []string
		catch bool
	}{
		{[]string{"version"}, false},
		{[]string{"help"}, false},
		{[]string{"help", "agent"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"__complete", "ag"}, false},
		{[]string{"preflight"}, true},
		{[]string{"sessions", "list"}, true},
	} {
		var out bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &out, catchTerm: true}
		// The commands that catch SIGTERM may fail here for want of a
		// config; what matters is what was installed before they ran.
		if code := a.execute(context.Background(), tc.args); code != 0 && !tc.catch {
			t.Fatalf("%v: exit %d: %.300s", tc.args, code, out.String())
		}
		if got := a.stopTerm != nil; got != tc.catch {
			t.Errorf("%v: SIGTERM handler installed = %v, want %v", tc.args, got, tc.catch)
		}
	}
}

// TestRootBuildsOnlyTheNamedCommand checks that start-up builds only the
// command the arguments name, and the whole tree whenever it is not sure.
func TestRootBuildsOnlyTheNamedCommand(t *testing.T) {
	a := &app{}
	for _, c := range a.topCommands() {
		if got := c.build().Name(); got != c.name {
			t.Errorf("topCommands lists %q for the command named %q", c.name, got)
		}
	}
	all := len(a.topCommands())
	for _, tc := range []struct {
		args []string
		want string // the only command built; "" for the whole tree
	}{
		{[]string{"version"}, "version"},
		{[]string{"agent", "-m", "hi"}, "agent"},
		{[]string{"--config", "gateway", "agent"}, "agent"}, // a flag's value is not a command
		{[]string{"--log-level=debug", "serve"}, "serve"},
		{[]string{"--output", "json", "--config", "c.json", "sessions", "list"}, "sessions"},
		{[]string{"agent", "--help"}, "agent"},
		{nil, ""},
		{[]string{"help", "agent"}, ""},
		{[]string{"--help"}, ""},
		{[]string{"-h", "agent"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"__complete", "ag"}, ""},
		{[]string{"agnet"}, ""},
		{[]string{"--", "agent"}, ""},
	} {
		root := a.rootCommandFor(tc.args)
		var names []string
		for _, c := range root.Commands() {
			names = append(names, c.Name())
		}
		if tc.want == "" && len(names) != all || tc.want != "" && (len(names) != 1 || names[0] != tc.want) {
			t.Errorf("%q built %v, want %q (\"\" for all %d)", tc.args, names, tc.want, all)
		}
		// A named command needs no completion command either: cobra
		// builds it (four subcommands, their help) on every run otherwise.
		if off := root.CompletionOptions.DisableDefaultCmd; off != (tc.want != "") {
			t.Errorf("%q: completion command disabled = %v, want %v", tc.args, off, tc.want != "")
		}
	}
}

// TestUnknownCommandSuggestsTheNearest checks that a mistyped command is
// met with the whole tree, so cobra can name the command meant.
func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	r := runCLI(t, "", "agnet")
	if r.code == 0 || !strings.Contains(r.stderr, "agent") {
		t.Fatalf("%+v", r)
	}
}
