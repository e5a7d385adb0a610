package soaktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayLongAnswerGoesAsADocument runs the gateway binary against the
// fake Bot API with a model that answers 1 MiB: the chat gets a few
// messages and the answer as one reply.md document, where it used to get
// 256 messages.
func TestGatewayLongAnswerGoesAsADocument(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; it runs in the race pass of `make test`, not under -short")
	}
	bin := buildBinary(t)
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	answer := strings.Repeat("a line of a very long answer, over and over\n", (1<<20)/44)
	model := providertest.NewServer(t)
	model.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text(answer) })

	home := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Agents.Defaults.Learning = "off"
	cfg.Providers["custom"] = config.Provider{APIBase: model.URL()}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, Token: api.Token, APIURL: api.URL, AllowFrom: []string{"101"}}
	cfgPath := filepath.Join(home, "config.json")
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "JOSHBOT_HOME=" + home}
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("gateway log:\n%s", logs.String())
		}
	}()
	api.UserSends(101, "write me a book")
	deadline := time.Now().Add(30 * time.Second)
	for len(api.Calls("sendDocument")) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
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
}
