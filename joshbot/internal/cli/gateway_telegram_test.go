package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

const emuToken = "4242:EMULATED"

// startEmulator runs telegram-test-api, the npm Bot API emulator that
// `make deps-telegram` installs from the committed lock file, and returns
// its URL.
func startEmulator(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed, so the telegram-test-api emulator cannot run: install Node.js to run this test")
	}
	dir, _ := filepath.Abs("../../../channels/telegram/testdata/emulator")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "telegram-test-api")); err != nil {
		t.Fatalf("the emulator is not installed: run `make deps-telegram` (npm ci in %s)", dir)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, "serve.js", fmt.Sprint(port))
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("emulator exited before it was ready")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("emulator did not start in 20s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

func emuUserSends(t *testing.T, emu string, user int, text string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"botToken": emuToken,
		"date":     time.Now().Unix(),
		"text":     text,
		"from":     map[string]any{"id": user, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", user)},
		"chat":     map[string]any{"id": user, "type": "private", "first_name": "U"},
	})
	resp, err := http.Post(emu+"/sendMessage", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// emuBotTexts returns what the bot sent into chat, in order.
func emuBotTexts(t *testing.T, emu string, chat int) []string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"token": emuToken})
	resp, err := http.Post(emu+"/getUpdatesHistory", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Result []struct {
			Message struct {
				ChatID string `json:"chat_id"`
				Text   string `json:"text"`
			} `json:"message"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range env.Result {
		if r.Message.ChatID == fmt.Sprint(chat) {
			out = append(out, r.Message.Text)
		}
	}
	return out
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGatewayTelegramEndToEnd runs the real binary's gateway against the
// Telegram emulator: an allowed user is answered exactly once, a stranger
// never reaches the model, and a gateway killed with SIGKILL and started
// again answers nothing twice.
func TestGatewayTelegramEndToEnd(t *testing.T) {
	bin := binary(t)
	emu := startEmulator(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		last := r.Messages[len(r.Messages)-1]
		return providertest.Text("echo: " + last.Content)
	})
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, TokenEnv: "JOSHBOT_TEST_TG_TOKEN", APIURL: emu, AllowFrom: []string{"1"}}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOSHBOT_TEST_TG_TOKEN", emuToken)

	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
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
		return cmd
	}
	gw := start()
	emuUserSends(t, emu, 2, "a stranger says hi")
	emuUserSends(t, emu, 1, "ping")
	waitUntil(t, "the reply to ping", func() bool { return len(emuBotTexts(t, emu, 1)) >= 1 })
	time.Sleep(1500 * time.Millisecond) // more polls: nothing may run twice

	gw.Process.Signal(syscall.SIGKILL)
	gw.Wait()
	start()
	emuUserSends(t, emu, 1, "second")
	waitUntil(t, "the reply to second", func() bool { return len(emuBotTexts(t, emu, 1)) >= 2 })
	time.Sleep(1500 * time.Millisecond)

	if got := emuBotTexts(t, emu, 1); len(got) != 2 || got[0] != "echo: ping" || got[1] != "echo: second" {
		t.Fatalf("chat 1 got %q, want each message answered once", got)
	}
	if got := emuBotTexts(t, emu, 2); len(got) != 0 {
		t.Fatalf("the stranger got %q", got)
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == providers.RoleUser && strings.Contains(m.Content, "stranger") {
				t.Fatal("a stranger's message reached the model")
			}
		}
	}
}

// TestGatewaySoak pushes 1,000 messages from 20 senders through the real
// gateway and the Telegram emulator, restarting the gateway (SIGTERM, as
// systemd does) halfway: every message is answered exactly once, in order
// per sender, and none is lost across the restart.
func TestGatewaySoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test takes tens of seconds; skipped in -short mode")
	}
	bin := binary(t)
	emu := startEmulator(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.RecordRequests(false)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		return providertest.Text("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	const senders, each = 20, 50
	var allow []string
	for s := 1; s <= senders; s++ {
		allow = append(allow, fmt.Sprint(s))
	}
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Streaming = false
	cfg.Channels.Telegram = config.Telegram{Enabled: true, TokenEnv: "JOSHBOT_TEST_TG_TOKEN", APIURL: emu, AllowFrom: allow}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOSHBOT_TEST_TG_TOKEN", emuToken)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config", cfgPath, "gateway")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
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
		return cmd
	}
	answered := func() int {
		n := 0
		for s := 1; s <= senders; s++ {
			n += len(emuBotTexts(t, emu, s))
		}
		return n
	}
	send := func(from, to int) {
		for i := from; i < to; i++ {
			for s := 1; s <= senders; s++ {
				emuUserSends(t, emu, s, fmt.Sprintf("s%d-%d", s, i))
			}
		}
	}

	gw := start()
	send(0, each/2)
	waitUntil(t, "a first share of answers", func() bool { return answered() >= senders*each/4 })
	gw.Process.Signal(syscall.SIGTERM)
	if err := gw.Wait(); err != nil {
		t.Fatalf("gateway did not stop cleanly on SIGTERM: %v", err)
	}
	start()
	send(each/2, each)
	deadline := time.Now().Add(3 * time.Minute)
	for answered() < senders*each {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d messages answered", answered(), senders*each)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // a few more polls: nothing may be answered twice
	for s := 1; s <= senders; s++ {
		got := emuBotTexts(t, emu, s)
		if len(got) != each {
			t.Fatalf("sender %d got %d answers, want %d", s, len(got), each)
		}
		for i, text := range got {
			if want := fmt.Sprintf("echo: s%d-%d", s, i); text != want {
				t.Fatalf("sender %d answer %d is %q, want %q (order or duplicate)", s, i, text, want)
			}
		}
	}
}
