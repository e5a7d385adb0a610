package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestMain fails the package's tests if a stopped server leaves a
// goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk-serve-test-key"

// startServer loads a runtime over srv the way the serve command does and
// serves it on a free loopback port until the returned stop.
func startServer(t testing.TB, srv *providertest.Server, mods ...func(*config.Config)) (base string, stop func()) {
	t.Helper()
	return startServerIn(t, srv, t.TempDir(), mods...)
}

// startServerIn is startServer with home as the state directory; each mod
// changes the config first.
func startServerIn(t testing.TB, srv *providertest.Server, home string, mods ...func(*config.Config)) (base string, stop func()) {
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
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Agents.Defaults.Learning = "off"
	cfg.Providers["custom"] = config.Provider{APIBase: srv.URL()}
	cfg.API = config.API{APIKeys: []string{testKey}}
	for _, mod := range mods {
		mod(cfg)
	}
	p := filepath.Join(home, "config.json")
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := runtime.Load(ctx, &runtime.Options{ConfigPath: p, Home: filepath.Dir(p), WrapTools: runtime.ProgressTools})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s, err := New(rt, &Options{Listen: "127.0.0.1:0", ListenSet: true})
	if err != nil {
		cancel()
		rt.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	return "http://" + s.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		rt.Close()
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServerRunsTurnsAndStopsClean runs a turn, a streamed turn whose tool
// call shows as progress, and stops: Run returns nil once ctx ends, and
// no goroutine is left (TestMain).
func TestServerRunsTurnsAndStopsClean(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.Text("plain answer"),
		providertest.ToolCalls(providertest.Call("list_dir", `{"path":"."}`)),
		providertest.Text("streamed answer"),
	)
	base, stop := startServer(t, srv)
	defer stop()
	code, body := post(t, base+"/v1/chat/completions", `{"model":"joshbot","user":"u1","messages":[{"role":"user","content":"hi"}]}`)
	if code != http.StatusOK || !strings.Contains(body, "plain answer") {
		t.Fatalf("%d %s", code, body)
	}
	code, body = post(t, base+"/v1/chat/completions", `{"model":"joshbot","user":"u1","stream":true,"messages":[{"role":"user","content":"look"}]}`)
	if code != http.StatusOK || streamedText(t, body) != "streamed answer" || !strings.Contains(body, `"tool":"list_dir"`) || !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") {
		t.Fatalf("%d %s", code, body)
	}
	http.DefaultClient.CloseIdleConnections()
}

// streamedText joins the content deltas of an SSE chat completion.
func streamedText(t *testing.T, body string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, c := range chunk.Choices {
			b.WriteString(c.Delta.Content)
		}
	}
	return b.String()
}

// TestDerivedConversationSeedsTheSession sends what a stock chat app sends
// after an edit (an earlier exchange, then a new question, no user field):
// the turn runs in a new api:chat: session that begins with the client's
// exchange, so the model sees it, and the client's system message is not
// among what the model sees.
func TestDerivedConversationSeedsTheSession(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("third answer"))
	home := t.TempDir()
	base, stop := startServerIn(t, srv, home)
	defer stop()
	code, body := post(t, base+"/v1/chat/completions", `{"model":"joshbot","messages":[
		{"role":"system","content":"CLIENT-SYSTEM"},
		{"role":"user","content":"first question"},{"role":"assistant","content":"first answer"},
		{"role":"user","content":"second question"}]}`)
	if code != http.StatusOK || !strings.Contains(body, "third answer") {
		t.Fatalf("%d %s", code, body)
	}
	http.DefaultClient.CloseIdleConnections()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var seen []string
	for _, m := range reqs[0].Messages {
		if strings.Contains(m.Content, "CLIENT-SYSTEM") {
			t.Fatalf("the client's system message reached the model as %s", m.Role)
		}
		if m.Role != providers.RoleSystem {
			seen = append(seen, m.Role+": "+m.Content)
		}
	}
	want := []string{"user: first question", "assistant: first answer", "user: second question"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the model saw %q, want %q", seen, want)
	}
	names, err := filepath.Glob(filepath.Join(home, "sessions", "api_chat=*.jsonl"))
	if err != nil || len(names) != 1 {
		t.Fatalf("derived sessions %v (%v), want one", names, err)
	}
}

// TestDistinctConversationsRunInParallel sends eight first messages of
// different chats at once to a model that takes half a second to answer:
// through the whole serve path (apiserver, agent, session store, provider
// client) they run together, so all eight are answered in about the time
// of one, where a global lock or a single worker would take four seconds.
func TestDistinctConversationsRunInParallel(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Reply{Content: "answered", Delay: 500 * time.Millisecond}
	})
	base, stop := startServer(t, srv)
	defer stop()
	const n = 8
	start := time.Now()
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			codes[i], _ = post(t, base+"/v1/chat/completions", fmt.Sprintf(`{"model":"joshbot","stream":true,"messages":[{"role":"user","content":"chat %d"}]}`, i))
		})
	}
	wg.Wait()
	took := time.Since(start)
	http.DefaultClient.CloseIdleConnections()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("chat %d: status %d", i, c)
		}
	}
	if took > 2*time.Second {
		t.Fatalf("%d distinct conversations took %s with a model answering in 0.5 s: they queued", n, took)
	}
}
