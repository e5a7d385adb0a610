package telegram_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

// manualClock is a clock the test advances by hand.
type manualClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
}

func newManualClock() *manualClock { return &manualClock{t: time.Unix(1_000_000, 0)} }

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) after(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.t
		return ch
	}
	c.timers = append(c.timers, manualTimer{at: c.t.Add(d), ch: ch})
	return ch
}

func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.t) {
			tm.ch <- c.t
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

// buttons decodes an inline keyboard from a recorded call.
func buttons(t *testing.T, c apiCall) map[string]string {
	t.Helper()
	var m struct {
		Rows [][]struct {
			Text string `json:"text"`
			Data string `json:"callback_data"`
		} `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(c.Params["reply_markup"]), &m); err != nil {
		return nil
	}
	out := map[string]string{}
	for _, row := range m.Rows {
		for _, b := range row {
			out[b.Text] = b.Data
		}
	}
	return out
}

// press queues a button press by user from in chat on message.
func press(h *harness, from, chat int64, message int, data string) {
	h.fake.push(map[string]any{"callback_query": map[string]any{
		"id":      "cb",
		"from":    map[string]any{"id": from, "is_bot": false, "first_name": "U"},
		"message": map[string]any{"message_id": message, "date": 1, "chat": map[string]any{"id": chat, "type": "private"}, "text": "x"},
		"data":    data,
	}})
}

func TestStreamEditsAtMostEveryThreeSeconds(t *testing.T) {
	h := newHarness(t, nil, false)
	clk := newManualClock()
	h.tg.SetClock(clk.now, clk.after)
	ctx := context.Background()
	s, err := h.tg.StartStream(ctx, "42", &channels.StreamOptions{ReplyTo: "5:31", Cancel: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	s.Status("⚙️ shell: go test ./...")
	waitFor(t, "the status line", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	first := h.fake.callsOf("sendMessage")[0]
	if !strings.Contains(first.Params["text"], "shell: go test") || first.Params["reply_to_message_id"] != "31" {
		t.Fatalf("status message = %+v", first.Params)
	}
	if _, ok := buttons(t, first)["⏹ Stop"]; !ok {
		t.Fatalf("status message has no Stop button: %s", first.Params["reply_markup"])
	}
	s.Update("Hello")
	waitFor(t, "the throttle timer", func() bool { return clk.pending() == 1 })
	if n := len(h.fake.callsOf("editMessageText")); n != 0 {
		t.Fatalf("edited %d times within 3s of the last write", n)
	}
	clk.advance(3 * time.Second)
	waitFor(t, "the edit", func() bool { return len(h.fake.callsOf("editMessageText")) == 1 })
	if got := h.fake.callsOf("editMessageText")[0].Params["text"]; !strings.Contains(got, "Hello") || !strings.Contains(got, "shell") {
		t.Errorf("edit = %q, want the answer so far and the status line", got)
	}
	s.Status("")
	if err := s.Finish(ctx, "Hello **world**"); err != nil {
		t.Fatal(err)
	}
	edits := h.fake.callsOf("editMessageText")
	last := edits[len(edits)-1]
	if last.Params["text"] != "Hello <b>world</b>" || last.Params["message_id"] != "1001" {
		t.Errorf("final edit = %+v, want the rendered answer in the status message", last.Params)
	}
	if strings.Contains(last.Params["reply_markup"], "Stop") {
		t.Error("the final answer still carries the Stop button")
	}
	if n := len(h.fake.callsOf("sendMessage")); n != 1 {
		t.Errorf("sendMessage calls = %d, want only the first (the answer replaces it)", n)
	}
}

func TestStreamFinishSplitsLongAnswers(t *testing.T) {
	h := newHarness(t, nil, false)
	ctx := context.Background()
	s, _ := h.tg.StartStream(ctx, "42", nil)
	s.Status("working")
	waitFor(t, "status", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	answer := strings.Repeat("word ", 2000) // 10,000 characters
	if err := s.Finish(ctx, answer); err != nil {
		t.Fatal(err)
	}
	var joined string
	for _, c := range h.fake.callsOf("editMessageText") {
		joined = c.Params["text"] // the last edit is the first piece
	}
	for _, c := range h.fake.callsOf("sendMessage")[1:] {
		joined += c.Params["text"]
	}
	if joined != answer {
		t.Fatalf("pieces rejoin to %d bytes, want the %d-byte answer", len(joined), len(answer))
	}
}

func TestStopButtonCancelsFromItsChatOnly(t *testing.T) {
	h := newHarness(t, nil, true)
	var cancelled atomic.Int32
	s, _ := h.tg.StartStream(context.Background(), "42", &channels.StreamOptions{Cancel: func() { cancelled.Add(1) }})
	s.Status("thinking")
	waitFor(t, "status", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	data := buttons(t, h.fake.callsOf("sendMessage")[0])["⏹ Stop"]
	// The same token pressed in another chat does nothing.
	press(h, 42, 99, 1001, data)
	waitFor(t, "the foreign press answered", func() bool { return len(h.fake.callsOf("answerCallbackQuery")) == 1 })
	if cancelled.Load() != 0 {
		t.Fatal("a press from another chat cancelled the turn")
	}
	press(h, 42, 42, 1001, data)
	waitFor(t, "cancel", func() bool { return cancelled.Load() == 1 })
	if err := s.Finish(context.Background(), "stopped"); err != nil {
		t.Fatal(err)
	}
	// Released: a second press is an expired button.
	press(h, 42, 42, 1001, data)
	waitFor(t, "third answer", func() bool { return len(h.fake.callsOf("answerCallbackQuery")) == 3 })
	if cancelled.Load() != 1 {
		t.Fatalf("cancel called %d times, want 1", cancelled.Load())
	}
	if got := h.fake.callsOf("answerCallbackQuery")[2].Params["text"]; !strings.Contains(got, "expired") {
		t.Errorf("answer to a released token = %q", got)
	}
}

func TestPickerPressDeliversTheCommand(t *testing.T) {
	h := newHarness(t, nil, true)
	err := h.tg.SendPicker(context.Background(), "42", "Choose a model", []channels.Choice{
		{Label: "GPT", Value: "/model openai/gpt-4o"}, {Label: "Claude", Value: "/model anthropic/claude"},
	}, "3:30")
	if err != nil {
		t.Fatal(err)
	}
	sent := h.fake.callsOf("sendMessage")[0]
	bs := buttons(t, sent)
	if len(bs) != 2 || sent.Params["reply_to_message_id"] != "30" {
		t.Fatalf("picker = %+v", sent.Params)
	}
	press(h, 66, 42, 1001, bs["Claude"]) // not on the allowlist
	press(h, 42, 42, 1001, bs["Claude"])
	waitFor(t, "delivery", func() bool { return len(h.sink.delivered()) == 1 })
	got := h.sink.delivered()[0]
	if got.Text != "/model anthropic/claude" || got.Principal != "42" || got.Conversation != "42" || !got.Mentioned {
		t.Fatalf("delivered %+v", got)
	}
	waitFor(t, "picker edit", func() bool { return len(h.fake.callsOf("editMessageText")) == 1 })
	if e := h.fake.callsOf("editMessageText")[0].Params["text"]; !strings.Contains(e, "✓ Claude") {
		t.Errorf("picker edited to %q", e)
	}
	if a := h.fake.callsOf("answerCallbackQuery")[0].Params["text"]; !strings.Contains(a, "not allowed") {
		t.Errorf("unlisted presser answered %q", a)
	}
}

func TestApproval(t *testing.T) {
	for _, tt := range []struct {
		name   string
		button string // "" = no press: the context times out
		want   channels.Decision
	}{
		{"allow", "✅ Allow", channels.DecisionAllow},
		{"deny", "⛔ Deny", channels.DecisionDeny},
		{"session", "Allow for session", channels.DecisionAllowSession},
		{"timeout", "", channels.DecisionDeny},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, true)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				d   channels.Decision
				err error
			}
			res := make(chan result, 1)
			go func() {
				d, err := h.tg.Approve(ctx, "42", "req-1", "Run `make clean`?", true)
				res <- result{d, err}
			}()
			waitFor(t, "prompt", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
			bs := buttons(t, h.fake.callsOf("sendMessage")[0])
			if len(bs) != 3 {
				t.Fatalf("buttons = %v", bs)
			}
			if tt.button == "" {
				// A press from another chat does not count.
				press(h, 42, 7, 1001, bs["✅ Allow"])
				waitFor(t, "foreign press", func() bool { return len(h.fake.callsOf("answerCallbackQuery")) == 1 })
				cancel()
			} else {
				press(h, 42, 42, 1001, bs[tt.button])
			}
			r := <-res
			if r.err != nil || r.d != tt.want {
				t.Fatalf("Approve = %v, %v; want %v", r.d, r.err, tt.want)
			}
			waitFor(t, "prompt edited", func() bool { return len(h.fake.callsOf("editMessageText")) == 1 })
		})
	}
}

func TestApprovalFailsClosedWhenThePromptCannotBePosted(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.override = func(c apiCall) (int, string) {
		return http.StatusForbidden, `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`
	}
	d, err := h.tg.Approve(context.Background(), "42", "r", "ok?", false)
	if err == nil || d != channels.DecisionDeny {
		t.Fatalf("Approve = %v, %v; want deny with an error", d, err)
	}
}

func TestDraftsInPrivateChats(t *testing.T) {
	h := newHarness(t, &telegram.Options{StreamDrafts: true}, false)
	ctx := context.Background()
	s, _ := h.tg.StartStream(ctx, "42", &channels.StreamOptions{ReplyTo: "1:9"})
	s.Update("Hi")
	waitFor(t, "drafts", func() bool { return len(h.fake.callsOf("sendMessageDraft")) == 2 })
	if err := s.Finish(ctx, "Hi there"); err != nil {
		t.Fatal(err)
	}
	d := h.fake.callsOf("sendMessageDraft")
	if d[0].Params["text"] != "" || d[1].Params["text"] != "Hi" || d[0].Params["draft_id"] != d[1].Params["draft_id"] {
		t.Errorf("drafts = %+v, want an empty placeholder then the text, one draft id", d)
	}
	sends := h.fake.callsOf("sendMessage")
	if len(sends) != 1 || sends[0].Params["text"] != "Hi there" || sends[0].Params["reply_to_message_id"] != "9" {
		t.Errorf("persisting send = %+v", sends)
	}
	if n := len(h.fake.callsOf("editMessageText")); n != 0 {
		t.Errorf("edits in draft mode = %d", n)
	}
}

func TestDraftRefusalFallsBackToEdits(t *testing.T) {
	h := newHarness(t, &telegram.Options{StreamDrafts: true}, false)
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendMessageDraft" {
			return http.StatusNotFound, `{"ok":false,"error_code":404,"description":"Not Found: method not found"}`
		}
		return 0, ""
	}
	ctx := context.Background()
	s, _ := h.tg.StartStream(ctx, "42", nil)
	s.Update("partial")
	waitFor(t, "live message", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	if err := s.Finish(ctx, "final"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.callsOf("sendMessageDraft")); n != 1 {
		t.Errorf("draft attempts = %d, want only the first", n)
	}
	if e := h.fake.callsOf("editMessageText"); len(e) != 1 || e[0].Params["text"] != "final" {
		t.Errorf("edits = %+v, want the final text in the live message", e)
	}

	// Groups never use drafts.
	g, _ := h.tg.StartStream(ctx, "-100", nil)
	g.Update("x")
	waitFor(t, "group message", func() bool { return len(h.fake.callsOf("sendMessage")) == 2 })
	g.Finish(ctx, "y")
	if n := len(h.fake.callsOf("sendMessageDraft")); n != 1 {
		t.Errorf("a group stream used drafts")
	}
}

func TestReactions(t *testing.T) {
	for _, on := range []bool{false, true} {
		h := newHarness(t, &telegram.Options{Reactions: on}, true)
		h.fake.push(msg(map[string]any{"message_id": 31, "text": "hi"}))
		waitFor(t, "delivery", func() bool { return len(h.sink.delivered()) == 1 })
		inb := h.sink.delivered()[0]
		if err := h.tg.Send(context.Background(), inb.Conversation, telegramOutbound("hello", inb.MessageID)); err != nil {
			t.Fatal(err)
		}
		r := h.fake.callsOf("setMessageReaction")
		if !on {
			if len(r) != 0 {
				t.Errorf("reactions off, but %d were set", len(r))
			}
			continue
		}
		if len(r) != 2 || !strings.Contains(r[0].Params["reaction"], "👀") || !strings.Contains(r[1].Params["reaction"], "👍") || r[1].Params["message_id"] != "31" {
			t.Errorf("reactions = %+v, want 👀 then 👍 on message 31", r)
		}
	}
}

func TestTypingKeepsAliveAndStops(t *testing.T) {
	h := newHarness(t, nil, false)
	clk := newManualClock()
	h.tg.SetClock(clk.now, clk.after)
	stop := h.tg.Typing(context.Background(), "42")
	waitFor(t, "first indicator", func() bool { return clk.pending() == 1 })
	clk.advance(4 * time.Second)
	waitFor(t, "renewal", func() bool { return len(h.fake.callsOf("sendChatAction")) == 2 })
	stop()
	stop() // idempotent
	clk.advance(20 * time.Second)
	time.Sleep(50 * time.Millisecond)
	if n := len(h.fake.callsOf("sendChatAction")); n != 2 {
		t.Fatalf("typing sent %d times, want 2 and none after stop", n)
	}
	if a := h.fake.callsOf("sendChatAction")[0].Params["action"]; a != "typing" {
		t.Errorf("action = %q", a)
	}
}

func TestStreamFinishPostsAnewWhenTheLiveMessageIsGone(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "editMessageText" {
			return http.StatusBadRequest, `{"ok":false,"error_code":400,"description":"Bad Request: message to edit not found"}`
		}
		return 0, ""
	}
	ctx := context.Background()
	s, _ := h.tg.StartStream(ctx, "42", &channels.StreamOptions{ReplyTo: "2:20"})
	s.Status("working")
	waitFor(t, "status", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	if err := s.Finish(ctx, "the answer"); err != nil {
		t.Fatal(err)
	}
	sends := h.fake.callsOf("sendMessage")
	if len(sends) != 2 || sends[1].Params["text"] != "the answer" || sends[1].Params["reply_to_message_id"] != "20" {
		t.Fatalf("sends = %+v, want the answer posted anew, threaded", sends)
	}
}
