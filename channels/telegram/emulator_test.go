package telegram_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

// emulator is a running telegram-test-api, the npm Bot API emulator the
// Makefile's deps-telegram target installs from the committed lock file.
type emulator struct {
	url string // the emulator itself (client routes)
	api string // a recording proxy in front of it: the adapter's api_url

	mu      sync.Mutex
	methods []string // Bot API methods the adapter called
}

const emuToken = "4242:EMULATED"

func startEmulator(t *testing.T) *emulator {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed, so the telegram-test-api emulator cannot run: install Node.js to run this test")
	}
	dir, _ := filepath.Abs("testdata/emulator")
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
	cmd.Stderr = os.Stderr
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
	e := &emulator{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	target, _ := url.Parse(e.url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, m, ok := strings.Cut(r.URL.Path, "/bot"+emuToken+"/"); ok {
			e.mu.Lock()
			e.methods = append(e.methods, m)
			e.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.api = srv.URL
	return e
}

func (e *emulator) called(method string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, m := range e.methods {
		if m == method {
			n++
		}
	}
	return n
}

// userSends posts a message as the emulated user userID in their private
// chat.
func (e *emulator) userSends(t *testing.T, userID int, text string, extra map[string]any) {
	t.Helper()
	m := map[string]any{
		"botToken": emuToken,
		"date":     time.Now().Unix(),
		"text":     text,
		"from":     map[string]any{"id": userID, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", userID)},
		"chat":     map[string]any{"id": userID, "type": "private", "first_name": "U"},
	}
	for k, v := range extra {
		m[k] = v
	}
	body, _ := json.Marshal(m)
	resp, err := http.Post(e.url+"/sendMessage", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

type emuMessage struct {
	ChatID  string `json:"chat_id"`
	Text    string `json:"text"`
	ReplyTo string `json:"reply_to_message_id"`
}

// botMessages returns what the bot sent into chat, in order.
func (e *emulator) botMessages(t *testing.T, chat int) []emuMessage {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"token": emuToken})
	resp, err := http.Post(e.url+"/getUpdatesHistory", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Result []struct {
			Message json.RawMessage `json:"message"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	var out []emuMessage
	for _, r := range env.Result {
		var m emuMessage
		json.Unmarshal(r.Message, &m)
		if m.ChatID == fmt.Sprint(chat) {
			out = append(out, m)
		}
	}
	return out
}

// gateway runs the adapter with a real channels.Router as its sink and
// handler as the turn, the way `joshbot gateway` joins them.
func gateway(t *testing.T, e *emulator, allow []string, handler func(tg *telegram.Telegram) channels.Handler) *telegram.Telegram {
	t.Helper()
	tg, err := telegram.New(&telegram.Options{Token: emuToken, APIURL: e.api, PollTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := channels.NewRouter(&channels.RouterOptions{
		Dir:       t.TempDir(),
		Channels:  []string{telegram.Name},
		AllowFrom: map[string][]string{telegram.Name: allow},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); tg.Start(ctx, r) }()
	go func() { defer wg.Done(); r.Run(ctx, handler(tg), nil) }()
	t.Cleanup(func() { cancel(); wg.Wait(); r.Close() })
	return tg
}

func TestEmulatorMessageAnsweredOnce(t *testing.T) {
	e := startEmulator(t)
	var mu sync.Mutex
	var seen []channels.Inbound
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			mu.Lock()
			seen = append(seen, inb)
			mu.Unlock()
			if err := tg.Send(ctx, inb.Conversation, channels.Outbound{Text: "pong: " + inb.Text, ReplyTo: inb.MessageID}); err != nil {
				t.Errorf("Send: %v", err)
			}
		}
	})
	e.userSends(t, 1, "ping", nil)
	waitFor(t, "the reply", func() bool { return len(e.botMessages(t, 1)) >= 1 })
	time.Sleep(1500 * time.Millisecond) // several more polls: nothing may run twice
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("handler ran %d times, want once: %+v", len(seen), seen)
	}
	if seen[0].Text != "ping" || seen[0].Principal != "1" || !seen[0].IsDirect || seen[0].Conversation != "1" {
		t.Errorf("inbound = %+v", seen[0])
	}
	got := e.botMessages(t, 1)
	if len(got) != 1 || got[0].Text != "pong: ping" {
		t.Fatalf("bot sent %+v, want one \"pong: ping\"", got)
	}
	if got[0].ReplyTo == "" || got[0].ReplyTo == "0" {
		t.Errorf("reply not threaded to the asking message: %+v", got[0])
	}
}

func TestEmulatorLongAnswerArrivesWhole(t *testing.T) {
	e := startEmulator(t)
	var answer strings.Builder
	for i := 0; answer.Len() < 10000; i++ {
		fmt.Fprintf(&answer, "Line %d of a long answer, with words to wrap.", i)
		if i%3 == 2 {
			answer.WriteString("\n")
		} else {
			answer.WriteString(" ")
		}
	}
	want := answer.String()[:10000]
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			if err := tg.Send(ctx, inb.Conversation, channels.Outbound{Text: want, ReplyTo: inb.MessageID}); err != nil {
				t.Errorf("Send: %v", err)
			}
		}
	})
	e.userSends(t, 1, "write me an essay", nil)
	waitFor(t, "three messages", func() bool { return len(e.botMessages(t, 1)) >= 3 })
	time.Sleep(300 * time.Millisecond)
	got := e.botMessages(t, 1)
	if len(got) != 3 {
		t.Fatalf("answer arrived as %d messages, want 3", len(got))
	}
	var joined strings.Builder
	for _, m := range got {
		if n := len([]rune(m.Text)); n > 4096 {
			t.Errorf("a message has %d characters, over 4096", n)
		}
		joined.WriteString(m.Text)
	}
	if joined.String() != want {
		t.Fatalf("concatenation differs from the answer (%d vs %d bytes)", joined.Len(), len(want))
	}
}

func TestEmulatorUnlistedSenderGetsNothing(t *testing.T) {
	e := startEmulator(t)
	var mu sync.Mutex
	var seen []string
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			mu.Lock()
			seen = append(seen, inb.Principal)
			mu.Unlock()
			tg.Send(ctx, inb.Conversation, channels.Outbound{Text: "hi", ReplyTo: inb.MessageID})
		}
	})
	// A stranger sends a document, which would need a download.
	e.userSends(t, 2, "", map[string]any{
		"caption":  "read this",
		"document": map[string]any{"file_id": "DOC1", "file_unique_id": "D1", "file_name": "notes.txt", "mime_type": "text/plain", "file_size": 100},
	})
	// Then the owner writes: once that is answered, the stranger's message
	// has certainly been read and processed before it.
	e.userSends(t, 1, "hello", nil)
	waitFor(t, "the owner's reply", func() bool { return len(e.botMessages(t, 1)) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "1" {
		t.Fatalf("handler saw %v, want only the listed sender 1", seen)
	}
	if n := e.called("getFile"); n != 0 {
		t.Fatalf("getFile called %d times for a sender outside the allowlist", n)
	}
	if got := e.botMessages(t, 2); len(got) != 0 {
		t.Fatalf("the stranger got %+v, want nothing", got)
	}
}
