package soaktest

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// lockedBuffer collects a process's output; safe to read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startGateway writes a config for the fake Bot API and a scripted model
// that always answers answer, with user 101 allowed, and starts the
// gateway binary, which the test's end kills if it still runs.
func startGateway(t *testing.T, api *telegramtest.BotAPI, answer string, edit ...func(*config.Config)) (cmd *exec.Cmd, logs *lockedBuffer) {
	t.Helper()
	bin := buildBinary(t)
	model := providertest.NewServer(t)
	model.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text(answer) })
	home := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Agents.Defaults.Learning = "off"
	cfg.Providers["custom"] = config.Provider{APIBase: model.URL()}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, Token: api.Token, APIURL: api.URL, AllowFrom: []string{"101"}}
	for _, e := range edit {
		e(cfg)
	}
	cfgPath := filepath.Join(home, "config.json")
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "JOSHBOT_HOME=" + home}
	logs = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("gateway log:\n%s", logs.String())
		}
	})
	return cmd, logs
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// TestGatewayLongAnswerGoesAsADocument runs the gateway binary against the
// fake Bot API with a model that answers 1 MiB: the chat gets a few
// messages and the answer as one reply.md document, where it used to get
// 256 messages.
func TestGatewayLongAnswerGoesAsADocument(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; it runs in the race pass of `make test`, not under -short")
	}
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	answer := strings.Repeat("a line of a very long answer, over and over\n", (1<<20)/44)
	cmd, _ := startGateway(t, api, answer)
	api.UserSends(101, "write me a book")
	waitFor(t, "the document", 30*time.Second, func() bool { return len(api.Calls("sendDocument")) > 0 })
	time.Sleep(time.Second) // anything sent after the document shows too
	docs := api.Calls("sendDocument")
	if len(docs) != 1 {
		t.Fatalf("%d documents, want the answer as one reply.md", len(docs))
	}
	if f := docs[0].Files["document"]; f.Name != "reply.md" || string(f.Data) != answer {
		t.Fatalf("document %q of %d bytes, want reply.md with the whole %d-byte answer", f.Name, len(f.Data), len(answer))
	}
	msgs := api.Calls("sendMessage")
	if len(msgs) > 8 {
		t.Fatalf("%d messages besides the document, want at most 8", len(msgs))
	}
	t.Logf("1 MiB answer: %d sendMessage, %d editMessageText, %d sendDocument", len(msgs), len(api.Calls("editMessageText")), len(docs))
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

// TestGatewayStopsPromptlyDuringALongAnswer sends SIGTERM while an 8 MiB
// answer is on its way: the gateway must exit well inside its 30 s grace
// period, having sent at most a handful of messages. A 32 MiB answer used
// to go on as thousands of messages for minutes after SIGTERM.
func TestGatewayStopsPromptlyDuringALongAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; it runs in the race pass of `make test`, not under -short")
	}
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	answer := strings.Repeat("a line of a very long answer, over and over\n", (8<<20)/44)
	cmd, _ := startGateway(t, api, answer)
	api.UserSends(101, "write me a library")
	waitFor(t, "the first message of the answer", 60*time.Second, func() bool { return len(api.Calls("sendMessage")) > 0 })
	stopped := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(25 * time.Second):
		t.Fatalf("the gateway was still running 25 s after SIGTERM (%d messages sent so far)", len(api.Calls("sendMessage")))
	}
	took := time.Since(stopped)
	msgs := api.Calls("sendMessage")
	t.Logf("8 MiB answer, SIGTERM at its first message: exited after %v; %d sendMessage, %d sendDocument", took.Round(time.Millisecond), len(msgs), len(api.Calls("sendDocument")))
	if len(msgs) > 8 {
		t.Fatalf("%d messages sent, want at most 8", len(msgs))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// httptestServer serves h on loopback until the test ends and returns its
// URL.
func httptestServer(t *testing.T, h *providertest.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)
	return srv.URL
}

// TestGatewayMaxChunksIsConfigurable: channels.telegram.max_chunks lowers
// the number of messages a reply may take before it goes as a document.
func TestGatewayMaxChunksIsConfigurable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; it runs in the race pass of `make test`, not under -short")
	}
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	// About three Telegram messages of text: under the default cap of 8,
	// over a cap of 2.
	answer := strings.Repeat("a paragraph of a medium-sized answer.\n", 11000/38)
	cmd, _ := startGateway(t, api, answer, func(c *config.Config) { c.Channels.Telegram.MaxChunks = 2 })
	api.UserSends(101, "tell me a story")
	waitFor(t, "the document", 30*time.Second, func() bool { return len(api.Calls("sendDocument")) > 0 })
	if f := api.Calls("sendDocument")[0].Files["document"]; string(f.Data) != answer {
		t.Fatalf("document of %d bytes, want the whole %d-byte answer", len(f.Data), len(answer))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}
