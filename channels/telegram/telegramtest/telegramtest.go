// Package telegramtest runs telegram-test-api, the npm emulator of the
// Telegram Bot API, and [BotAPI], a Go fake of it, for tests that drive a Telegram bot end to end on
// loopback: the channels/telegram adapter's own tests and the joshbot
// gateway's. It is the one launcher both use.
//
// The emulator is a Node.js project in channels/telegram/testdata/emulator,
// installed from its committed lock file by the Makefile's deps-telegram
// target (npm ci). [Start] skips the test when node is not installed and
// fails it, saying how to install the emulator, when the project's
// node_modules are missing.
//
// # Quick start
//
//	emu := telegramtest.Start(t)
//	tg, _ := telegram.New(&telegram.Options{Token: telegramtest.Token, APIURL: emu.APIURL})
//	go tg.Start(ctx, sink)
//	emu.UserSends(t, 1, "ping", nil)    // user 1 writes in their private chat
//	texts := emu.BotTexts(t, 1)         // what the bot sent into that chat
//	live := emu.BotMessages(t, 1)[0]    // a message with its id and buttons
//	data, _ := live.Button("⏹ Stop")
//	emu.UserPresses(t, 1, live, data)   // user 1 presses the button
//
// The emulator does not serve sendChatAction (it answers with its
// unknown-method error and records nothing); [Emulator.Called] still
// counts the calls, made through APIURL's recording proxy.
//
// The emulator marks an update read when it hands it out and ignores the
// offset of getUpdates, so it cannot show what Telegram redelivers after a
// crash. [BotAPI] is a small Go fake with real offset semantics for that:
// an update stays queued until a later getUpdates confirms it.
//
//	api := telegramtest.NewBotAPI("")   // Token unless one is given
//	defer api.Close()
//	api.UserSends(42, "ping")           // queued until confirmed
//	// ... run the bot with api.URL as its Bot API root ...
//	for _, c := range api.Sent(42) { fmt.Println(c.Method, c.Text) }
package telegramtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Token is the bot token the emulated bot uses; give it to the adapter
// (Options.Token) or the gateway's configuration.
const Token = "4242:EMULATED"

// startTimeout bounds the emulator's start; stopTimeout how long it may
// take to exit once told to.
const (
	startTimeout = 20 * time.Second
	stopTimeout  = 5 * time.Second
)

// Emulator is a running telegram-test-api. Its methods are safe for
// concurrent use.
type Emulator struct {
	// URL is the emulator's own root, where its client routes are (a
	// user sending a message, the history of what the bot sent).
	URL string
	// APIURL is the Bot API root to give the bot (channels.telegram.api_url
	// or Options.APIURL): a proxy in front of the emulator that records
	// which Bot API methods were called (see [Emulator.Called]).
	APIURL string

	mu      sync.Mutex
	methods []string
}

// Dir returns the emulator's npm project directory, found next to this
// package's source. It is empty when the source is not on disk (a binary
// built with -trimpath).
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "emulator")
}

// Start runs the emulator on a free loopback port until the test ends, and
// returns it once it accepts requests. It skips the test when node is not
// installed, and fails it when the emulator's packages are not installed
// or it does not start within 20 seconds.
func Start(t testing.TB) *Emulator {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed, so the telegram-test-api emulator cannot run: install Node.js to run this test")
	}
	dir := Dir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "telegram-test-api")); dir == "" || err != nil {
		t.Fatalf("the Telegram emulator is not installed: run `make deps-telegram` (npm ci in %s)", dir)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "serve.js", fmt.Sprint(port))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	// serve.js exits when its stdin closes, so a test that dies takes the
	// emulator with it.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the Telegram emulator: %v", err)
	}
	ready := make(chan bool, 1)
	read := make(chan struct{}) // closed when stdout is read to its end
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		ready <- false
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-read:
		case <-time.After(stopTimeout):
			cmd.Process.Kill()
			<-read
		}
		cmd.Wait()
	})
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the Telegram emulator exited before it was ready")
		}
	case <-time.After(startTimeout):
		t.Fatalf("the Telegram emulator did not start in %v", startTimeout)
	}
	e := &Emulator{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	target, _ := url.Parse(e.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, m, ok := strings.Cut(r.URL.Path, "/bot"+Token+"/"); ok {
			e.mu.Lock()
			e.methods = append(e.methods, m)
			e.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.APIURL = srv.URL
	return e
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Called returns how many times the bot called the Bot API method (such
// as "getFile") through APIURL.
func (e *Emulator) Called(method string) int {
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

// UserSends makes user (a Telegram user id) send text to the bot in their
// private chat, whose chat id is the user id. extra adds or replaces
// fields of the message (a "document", a "caption"); nil adds none.
func (e *Emulator) UserSends(t testing.TB, user int64, text string, extra map[string]any) {
	t.Helper()
	m := map[string]any{
		"botToken": Token,
		"date":     time.Now().Unix(),
		"text":     text,
		"from":     map[string]any{"id": user, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", user)},
		"chat":     map[string]any{"id": user, "type": "private", "first_name": "U"},
	}
	for k, v := range extra {
		m[k] = v
	}
	e.post(t, "/sendMessage", m, nil)
}

// Message is one message the bot sent, as the emulator stored it: as it
// was sent, with every later editMessageText and editMessageReplyMarkup
// merged in (the emulator keeps the last value of each field an edit
// carried, so an edit that omits reply_markup leaves the old buttons in
// its record although Telegram would remove them). A deleted message is
// no longer in the history.
type Message struct {
	// ID is its message id, as the bot got it back from sendMessage.
	ID int `json:"-"`
	// ChatID is the chat it went to.
	ChatID string `json:"chat_id"`
	// Text is its text (Telegram HTML, as sent).
	Text string `json:"text"`
	// ReplyTo is the message id it answers; empty or "0" means none.
	ReplyTo string `json:"reply_to_message_id"`
	// Markup is its inline keyboard, if it had one.
	Markup Markup `json:"reply_markup"`
}

// Markup is a bot message's reply_markup as the emulator stored it.
type Markup struct {
	// Keyboard holds the rows of inline buttons.
	Keyboard [][]Button `json:"inline_keyboard"`
}

// Button is one inline keyboard button of a bot message.
type Button struct {
	// Text is the button's label, such as "⏹ Stop".
	Text string `json:"text"`
	// Data is the callback data a press sends back to the bot.
	Data string `json:"callback_data"`
}

// Button returns the callback data of the message's inline button
// labelled label, and whether it has one.
func (m Message) Button(label string) (string, bool) {
	for _, row := range m.Markup.Keyboard {
		for _, b := range row {
			if b.Text == label {
				return b.Data, true
			}
		}
	}
	return "", false
}

// BotMessages returns what the bot sent into chat, in order, each in its
// latest edited state. The history also holds what users sent and
// pressed; those are left out.
func (e *Emulator) BotMessages(t testing.TB, chat int64) []Message {
	t.Helper()
	var env struct {
		Result []struct {
			MessageID int             `json:"messageId"`
			Message   json.RawMessage `json:"message"`
		} `json:"result"`
	}
	e.post(t, "/getUpdatesHistory", map[string]any{"token": Token}, &env)
	var out []Message
	for _, r := range env.Result {
		if len(r.Message) == 0 {
			continue // a button press: it carries a callbackQuery, no message
		}
		var m Message
		if err := json.Unmarshal(r.Message, &m); err != nil {
			t.Fatalf("the Telegram emulator's history holds a message that is not JSON: %v", err)
		}
		if m.ChatID == fmt.Sprint(chat) {
			m.ID = r.MessageID
			out = append(out, m)
		}
	}
	return out
}

// UserPresses makes user press the inline button whose callback data is
// data under the bot's message msg, in the user's private chat (chat id =
// user id): the bot receives a callback_query update.
func (e *Emulator) UserPresses(t testing.TB, user int64, msg Message, data string) {
	t.Helper()
	e.post(t, "/sendCallback", map[string]any{
		"botToken": Token,
		"data":     data,
		"from":     map[string]any{"id": user, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", user)},
		"message": map[string]any{
			"message_id": msg.ID,
			"date":       time.Now().Unix(),
			"text":       msg.Text,
			"chat":       map[string]any{"id": user, "type": "private", "first_name": "U"},
			"from":       map[string]any{"id": 4242, "is_bot": true, "first_name": "Bot"},
		},
	}, nil)
}

// BotTexts returns the texts the bot sent into chat, in order.
func (e *Emulator) BotTexts(t testing.TB, chat int64) []string {
	t.Helper()
	var out []string
	for _, m := range e.BotMessages(t, chat) {
		out = append(out, m.Text)
	}
	return out
}

// post sends body to one of the emulator's client routes and decodes the
// answer into out when out is not nil.
func (e *Emulator) post(t testing.TB, route string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.URL+route, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Telegram emulator %s: %v", route, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Telegram emulator %s: %s", route, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("Telegram emulator %s: %v", route, err)
		}
	}
}
