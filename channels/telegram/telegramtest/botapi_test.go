package telegramtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
)

func newBotAPI(t *testing.T) *telegramtest.BotAPI {
	t.Helper()
	b := telegramtest.NewBotAPI("")
	t.Cleanup(b.Close)
	return b
}

// call posts params as JSON to method and returns the decoded result.
func call(t *testing.T, b *telegramtest.BotAPI, method string, params map[string]any) json.RawMessage {
	t.Helper()
	body, _ := json.Marshal(params)
	resp, err := http.Post(b.URL+"/bot"+b.Token+"/"+method, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		Description string          `json:"description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if !env.OK {
		t.Fatalf("%s: %s", method, env.Description)
	}
	return env.Result
}

func updateIDs(t *testing.T, raw json.RawMessage) []int64 {
	t.Helper()
	var ups []struct {
		ID int64 `json:"update_id"`
	}
	if err := json.Unmarshal(raw, &ups); err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, u := range ups {
		ids = append(ids, u.ID)
	}
	return ids
}

// An update handed out stays queued until a getUpdates with a higher
// offset confirms it: a bot that read updates and died before asking for
// the next ones gets them again, as from real Telegram.
func TestBotAPIRedeliversUntilConfirmed(t *testing.T) {
	b := newBotAPI(t)
	u1, _ := b.UserSends(42, "one")
	u2, _ := b.UserSends(42, "two")
	for i := 0; i < 2; i++ { // the second read is the restarted bot's
		if got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"offset": 0})); fmt.Sprint(got) != fmt.Sprint([]int64{u1, u2}) {
			t.Fatalf("read %d: updates %v, want %v", i+1, got, []int64{u1, u2})
		}
	}
	if got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"offset": u1 + 1})); fmt.Sprint(got) != fmt.Sprint([]int64{u2}) {
		t.Fatalf("after confirming %d: updates %v", u1, got)
	}
	if n := b.Pending(); n != 1 {
		t.Fatalf("Pending = %d after confirming one of two", n)
	}
	if n, h := b.Redelivered(), b.HandedOut(); n != 3 || h != 5 {
		t.Fatalf("Redelivered = %d, HandedOut = %d; want 3 (both updates once more, then the second again) of 5", n, h)
	}
	// A confirmed update is gone for good, even for offset 0.
	if got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"offset": 0})); fmt.Sprint(got) != fmt.Sprint([]int64{u2}) {
		t.Fatalf("confirmed update served again: %v", got)
	}
	call(t, b, "getUpdates", map[string]any{"offset": u2 + 1})
	if n := b.Pending(); n != 0 {
		t.Fatalf("Pending = %d after confirming all", n)
	}
	if got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"offset": 0, "limit": 1})); len(got) != 0 {
		t.Fatalf("updates after all were confirmed: %v", got)
	}
}

func TestBotAPILongPollWaitsForAnUpdate(t *testing.T) {
	b := newBotAPI(t)
	start := time.Now()
	if got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"timeout": 1})); len(got) != 0 {
		t.Fatalf("updates from an empty queue: %v", got)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("an empty long poll returned after %v, want about its 1s timeout", d)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		b.UserSends(7, "hi")
	}()
	start = time.Now()
	got := updateIDs(t, call(t, b, "getUpdates", map[string]any{"timeout": 10}))
	if len(got) != 1 || time.Since(start) > 5*time.Second {
		t.Fatalf("long poll gave %v after %v", got, time.Since(start))
	}
}

func TestBotAPIRecordsBotCalls(t *testing.T) {
	b := newBotAPI(t)
	var sent struct {
		MessageID int `json:"message_id"`
	}
	json.Unmarshal(call(t, b, "sendMessage", map[string]any{"chat_id": 42, "text": "hello"}), &sent)
	call(t, b, "editMessageText", map[string]any{"chat_id": 42, "message_id": sent.MessageID, "text": "hello again"})
	call(t, b, "sendChatAction", map[string]any{"chat_id": "42", "action": "typing"})
	call(t, b, "setMyCommands", map[string]any{"commands": []map[string]string{{"command": "new", "description": "start over"}}})
	call(t, b, "answerCallbackQuery", map[string]any{"callback_query_id": "cb1"})

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("chat_id", "42")
	mw.WriteField("caption", "the rest")
	fw, _ := mw.CreateFormFile("document", "reply.md")
	io.WriteString(fw, "# long answer")
	mw.Close()
	resp, err := http.Post(b.URL+"/bot"+b.Token+"/sendDocument", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	if text, ok := b.Message(42, sent.MessageID); !ok || text != "hello again" {
		t.Fatalf("message %d shows %q (%v), want the edit", sent.MessageID, text, ok)
	}
	var methods []string
	for _, c := range b.Calls() {
		methods = append(methods, c.Method)
	}
	if want := "[sendMessage editMessageText sendChatAction setMyCommands answerCallbackQuery sendDocument]"; fmt.Sprint(methods) != want {
		t.Fatalf("calls %v, want %s", methods, want)
	}
	s := b.Sent(42)
	if len(s) != 2 || s[0].Text != "hello" || s[1].Text != "the rest" || s[1].Files["document"].Name != "reply.md" || string(s[1].Files["document"].Data) != "# long answer" {
		t.Fatalf("Sent(42) = %+v", s)
	}
	if c := b.Calls("sendChatAction")[0]; c.ChatID != 42 {
		t.Fatalf("chat id of a string chat_id: %d", c.ChatID)
	}
	resp, err = http.Post(b.URL+"/bot"+b.Token+"/sendSticker", "application/json", bytes.NewReader([]byte(`{}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown method answered %s", resp.Status)
	}
	resp, err = http.Post(b.URL+"/botWRONG/getMe", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token answered %s", resp.Status)
	}
}

// sink records what the adapter delivers.
type sink struct {
	mu  sync.Mutex
	got []string
	// hold, when set, keeps Deliver from returning until it is closed,
	// so a stop lands between a delivery and the next poll.
	hold chan struct{}
}

func (s *sink) Deliver(ctx context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	s.got = append(s.got, inb.MessageID+":"+inb.Text)
	s.mu.Unlock()
	if s.hold != nil {
		<-s.hold
	}
	return nil
}

func (s *sink) delivered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func runAdapter(t *testing.T, b *telegramtest.BotAPI, s *sink) (cancel, wait func()) {
	t.Helper()
	tg, err := telegram.New(&telegram.Options{Token: b.Token, APIURL: b.URL, PollTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tg.Start(ctx, s); close(done) }()
	return cancel, func() { <-done }
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// The real adapter confirms an update only with its next getUpdates, so an
// adapter stopped right after delivering leaves the update queued, and the
// next adapter is handed it again: this is the redelivery the gateway's
// dedup log must absorb.
func TestBotAPIRedeliversToTheNextAdapter(t *testing.T) {
	b := newBotAPI(t)
	first := &sink{hold: make(chan struct{})}
	cancel, wait := runAdapter(t, b, first)
	waitFor(t, "the adapter's first poll", func() bool { return len(b.Calls("getUpdates")) > 0 })
	upd, mid := b.UserSends(42, "ping")
	waitFor(t, "the first delivery", func() bool { return len(first.delivered()) == 1 })
	cancel() // stopped before the next poll, which would confirm the update
	close(first.hold)
	wait()
	if b.Pending() != 1 {
		t.Fatalf("Pending = %d: the update was confirmed before a later poll asked past it", b.Pending())
	}
	second := &sink{}
	cancel, wait = runAdapter(t, b, second)
	waitFor(t, "the redelivery", func() bool { return len(second.delivered()) == 1 })
	waitFor(t, "the confirmation", func() bool { return b.Pending() == 0 })
	cancel()
	wait()
	want := fmt.Sprintf("%d:%d:ping", upd, mid) // the adapter's MessageID is update:message
	if got := second.delivered(); got[0] != want {
		t.Fatalf("redelivered %v, want %s", got, want)
	}
}

// A held call is neither recorded nor answered until Release; one whose
// client gives up meanwhile never arrived.
func TestBotAPIHoldsCalls(t *testing.T) {
	b := newBotAPI(t)
	b.Hold(func(c telegramtest.Call) bool { return c.Method == "sendMessage" && c.Text == "held" })
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, b.URL+"/bot"+b.Token+"/sendMessage", bytes.NewReader([]byte(`{"chat_id":1,"text":"held"}`)))
	req.Header.Set("Content-Type", "application/json")
	gaveUp := make(chan struct{})
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		close(gaveUp)
	}()
	waitFor(t, "the held call", func() bool { return b.Held() == 1 })
	call(t, b, "sendMessage", map[string]any{"chat_id": 1, "text": "not held"})
	cancel()
	<-gaveUp
	done := make(chan struct{})
	go func() {
		if resp, err := http.Post(b.URL+"/bot"+b.Token+"/sendMessage", "application/json", bytes.NewReader([]byte(`{"chat_id":1,"text":"held"}`))); err == nil {
			resp.Body.Close()
		}
		close(done)
	}()
	waitFor(t, "the second held call", func() bool { return b.Held() == 2 })
	if s := b.Sent(1); len(s) != 1 || s[0].Text != "not held" {
		t.Fatalf("sent %+v while held, want only the call that was not held", s)
	}
	b.Release()
	<-done
	if s := b.Sent(1); len(s) != 2 || s[1].Text != "held" {
		t.Fatalf("sent %+v after Release, want the released call too (the abandoned one never arrived)", s)
	}
}
