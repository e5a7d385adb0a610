package cli

import (
	"cmp"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// jsDir holds the real-client scripts and the lock file that pins the
// openai and playwright-core packages they use.
var jsDir = filepath.Join("..", "..", "..", "apiserver", "testdata", "js")

var (
	npmOnce sync.Once
	npmErr  error
	npmOut  []byte
)

// needNode returns the node binary, installing the locked npm packages if
// `make test` has not already. It skips only when node itself is missing.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; `make test` installs it with the other test tools")
	}
	npmOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "openai", "package.json")); err == nil {
			if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "playwright-core", "package.json")); err == nil {
				return
			}
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			npmErr = err
			return
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = jsDir
		npmOut, npmErr = cmd.CombinedOutput()
	})
	if npmErr != nil {
		t.Fatalf("installing the locked npm packages in %s failed (run `make test-clients-deps`): %v\n%s", jsDir, npmErr, npmOut)
	}
	return node
}

// runScript runs a script from jsDir against s and fails the test with its
// output when it exits non-zero.
func runScript(t *testing.T, node, script string, s *served, extraEnv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(), append([]string{"JOSHBOT_URL=" + s.url, "JOSHBOT_KEY=" + serveKey}, extraEnv...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", script, out)
	if err != nil {
		t.Fatalf("%s failed: %v\nserver log:\n%s", script, err, s.stderr)
	}
	return string(out)
}

// writeNotes puts a file in the workspace of the config at cfgPath.
func writeNotes(t *testing.T, cfgPath, name, text string) {
	t.Helper()
	ws := filepath.Join(filepath.Dir(cfgPath), "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOpenAIClient runs the official openai npm package against a live
// joshbot serve whose agent talks to the scripted provider.
func TestOpenAIClient(t *testing.T) {
	node := needNode(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.Reply{Content: "Hello from the scripted model.", Usage: providers.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
		providertest.Text("A streamed answer, in several pieces."),
		providertest.Reply{Content: "Counted.", Usage: providers.Usage{PromptTokens: 11, CompletionTokens: 2, TotalTokens: 13}},
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"notes.md"}`)),
		providertest.Text("Your notes say 42."),
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"notes.md"}`)),
		providertest.Text("Your notes say 42."),
	)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Error(500, "upstream exploded, key sk-leak-123")
	})
	cfgPath := serveConfig(t, srv, nil)
	writeNotes(t, cfgPath, "notes.md", "the answer is 42")
	s := startServe(t, cfgPath)
	out := runScript(t, node, "openai_client.mjs", s)
	if !strings.Contains(out, "all openai client checks passed") {
		t.Fatal("the script did not reach its end")
	}
	if srv.Pending() != 0 {
		t.Fatalf("%d scripted replies unused", srv.Pending())
	}
	// The tool results reached the model both times.
	n := 0
	for _, r := range srv.Requests() {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[len(r.Messages)-1].Content, "the answer is 42") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("tool result reached the model %d times, want 2", n)
	}
}

// TestWebUIChromium logs into the web chat in headless Chromium, chats,
// reloads, and checks the page for CSP violations and for model output
// rendered as markup.
func TestWebUIChromium(t *testing.T) {
	node := needNode(t)
	// CHROMIUM names another Chromium build, for a machine without
	// Debian's package.
	chromium := cmp.Or(os.Getenv("CHROMIUM"), "/usr/bin/chromium")
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing; `make test` installs Debian's chromium package (or set CHROMIUM)", chromium)
	}
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"notes.md"}`)),
		providertest.Text("Your notes say 42."),
		providertest.Text(`Here it is: <img src=x onerror="window.__pwned=1">`),
	)
	cfgPath := serveConfig(t, srv, func(c *config.Config) { c.API.WebUI = true })
	writeNotes(t, cfgPath, "notes.md", "the answer is 42")
	s := startServe(t, cfgPath)
	out := runScript(t, node, "webui_chromium.mjs", s, "CHROMIUM="+chromium)
	if !strings.Contains(out, "all web UI checks passed") {
		t.Fatal("the script did not reach its end")
	}
	if srv.Pending() != 0 {
		t.Fatalf("%d scripted replies unused", srv.Pending())
	}
}

// TestWebUIChromiumWaitingAndStop drives the web chat in headless Chromium
// against a model that is slow to begin (the page says it is waiting for
// the model, and the first words clear that) and one that hangs mid-answer
// (Stop keeps the partial text marked "(stopped)", and the session holds it
// as an interrupted assistant message, issue 22 items 11 and 13).
func TestWebUIChromiumWaitingAndStop(t *testing.T) {
	node := needNode(t)
	chromium := cmp.Or(os.Getenv("CHROMIUM"), "/usr/bin/chromium")
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing; `make test` installs Debian's chromium package (or set CHROMIUM)", chromium)
	}
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.Reply{Content: "Here after a wait.", Delay: 4 * time.Second},
		providertest.Reply{Content: "Once upon a time, then happily ever after.", Chunks: 4, HangAfterChunks: 2},
	)
	cfgPath := serveConfig(t, srv, func(c *config.Config) { c.API.WebUI = true })
	s := startServe(t, cfgPath)
	out := runScript(t, node, "webui_stop_chromium.mjs", s, "CHROMIUM="+chromium)
	if !strings.Contains(out, "all web UI stop checks passed") {
		t.Fatal("the script did not reach its end")
	}
	_, rest, ok := strings.Cut(out, "conversation=")
	if !ok {
		t.Fatal("the script did not print the conversation name")
	}
	user, _, _ := strings.Cut(rest, "\n")
	store, err := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	// The server notices the closed connection and saves the turn just
	// after the page shows "(stopped)".
	var last memory.Message
	deadline := time.Now().Add(10 * time.Second)
	for {
		sess, err := store.Load("api:" + user)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(sess.Messages); n > 0 {
			last = sess.Messages[n-1]
		}
		if last.Kind == memory.KindInterrupted || time.Now().After(deadline) {
			var roles []string
			for _, m := range sess.Messages {
				roles = append(roles, m.Role+"/"+string(m.Kind))
			}
			t.Logf("session api:%s: %v", user, roles)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last.Role != providers.RoleAssistant || last.Kind != memory.KindInterrupted {
		t.Fatalf("last stored message is %s %q (kind %q), want the stopped answer as an interrupted assistant message", last.Role, last.Content, last.Kind)
	}
	if !strings.HasPrefix(last.Content, "Once upon") || strings.Contains(last.Content, "happily") {
		t.Fatalf("interrupted message holds %q, want only the part shown before Stop", last.Content)
	}
}
