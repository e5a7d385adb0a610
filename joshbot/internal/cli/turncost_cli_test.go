package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A provider that sends its headers and then nothing is given up on after
// providers.<name>.first_byte_timeout, and the error names that key, not
// the whole-request timeout.
func TestFirstByteTimeoutNamesItsKey(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Reply{Content: "never", HangAfterHeaders: true}
	})
	zero := 0
	p := serveConfig(t, srv, func(c *config.Config) {
		c.Agents.Defaults.Streaming = true
		c.Providers["custom"] = config.Provider{APIBase: srv.URL(), Timeout: config.Duration(time.Minute),
			FirstByteTimeout: config.Duration(time.Second), MaxRetries: &zero}
	})
	s := startServe(t, p)
	start := time.Now()
	resp := s.post(t, "/v1/chat/completions", serveKey, `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	body := readAll(t, resp.Body)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the silent provider held the turn %s although first_byte_timeout is 1s", took)
	}
	if !strings.Contains(body, "providers.custom.first_byte_timeout") || strings.Contains(body, "ClientOptions") {
		t.Fatalf("streamed request against a silent provider: %d %s\nwant an error naming providers.custom.first_byte_timeout", resp.StatusCode, body)
	}
}

// A message over agents.defaults.max_message_bytes is kept as a workspace
// file the conversation references; the model gets the reference, not the
// whole text.
func TestLargeMessageGoesToTheWorkspace(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("read it"))
	p := serveConfig(t, srv, func(c *config.Config) { c.Agents.Defaults.MaxMessageBytes = 4096 })
	big := strings.Repeat("line of a long pasted log\n", 2000)
	if r := runCLI(t, "", "--config", p, "agent", "-m", big); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	if len(last) > 8192 || !strings.Contains(last, "inbox") {
		t.Fatalf("the model got %d bytes, want a short reference to the inbox file", len(last))
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "workspace", "inbox", "*"))
	if len(files) != 1 {
		t.Fatalf("inbox files: %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), strings.TrimSpace(big)) {
		t.Fatalf("the inbox file does not hold the whole message (%d bytes)", len(b))
	}
}
