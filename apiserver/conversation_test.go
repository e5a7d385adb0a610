package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// historyAgent keeps each session's turns the way a real agent's store
// does: a new session begins with the History the server passes, and
// every turn appends the user's message and the answer. It answers with
// the user messages of the session so far, so a test reads from the
// answer which history the model saw.
type historyAgent struct {
	mu       sync.Mutex
	sessions map[string][]TranscriptMessage
	keys     []string
	seeded   []bool
}

func newHistoryAgent() *historyAgent {
	return &historyAgent{sessions: map[string][]TranscriptMessage{}}
}

func (h *historyAgent) Turn(_ context.Context, req TurnRequest, emit func(Event)) (*TurnResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keys = append(h.keys, req.SessionKey)
	h.seeded = append(h.seeded, req.History != nil)
	sess, exists := h.sessions[req.SessionKey]
	if req.History != nil {
		if exists {
			return nil, fmt.Errorf("History passed for the existing session %s", req.SessionKey)
		}
		sess = append(sess, req.History...)
	}
	sess = append(sess, TranscriptMessage{Role: "user", Content: req.Text})
	var users []string
	for _, m := range sess {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	answer := "seen: " + strings.Join(users, " | ")
	h.sessions[req.SessionKey] = append(sess, TranscriptMessage{Role: "assistant", Content: answer})
	if emit != nil {
		half := len(answer) / 2
		emit(Event{Delta: answer[:half]})
		emit(Event{Progress: &Progress{Tool: "read_file"}})
		emit(Event{Delta: answer[half:]})
	}
	return &TurnResult{Text: answer}, nil
}

// lastTurn is the session key and seeding of the newest turn.
func (h *historyAgent) lastTurn() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keys[len(h.keys)-1], h.seeded[len(h.seeded)-1]
}

// chatWindow is one conversation of a stock chat client: it resends its
// whole history, system message first, with every request and never a
// user field.
type chatWindow struct {
	system string
	msgs   []TranscriptMessage
	stream bool
}

// send posts the window's history and text and returns the answer, which
// joins the history (as a client keeps it, with a trailing newline a
// client might add, which must not matter).
func (c *chatWindow) send(t *testing.T, s http.Handler, text string) string {
	t.Helper()
	c.msgs = append(c.msgs, TranscriptMessage{Role: "user", Content: text})
	var msgs []map[string]string
	if c.system != "" {
		msgs = append(msgs, map[string]string{"role": "system", "content": c.system})
	}
	for _, m := range c.msgs {
		msgs = append(msgs, map[string]string{"role": m.Role, "content": m.Content})
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "stream": c.stream, "messages": msgs})
	w := do(t, s, "POST", "/v1/chat/completions", testKey, string(body))
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var answer string
	if c.stream {
		for _, ch := range decodeChunks(t, parseSSE(t, w.Body.String()).data) {
			for _, choice := range ch.Choices {
				if choice.Delta.Content != nil {
					answer += *choice.Delta.Content
				}
			}
		}
	} else {
		var resp struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Choices) != 1 {
			t.Fatalf("response %s: %v", w.Body, err)
		}
		answer = resp.Choices[0].Message.Content
	}
	c.msgs = append(c.msgs, TranscriptMessage{Role: "assistant", Content: answer + "\n"})
	return answer
}

// back drops the last n messages, as a client's regenerate (n=2 then the
// same text again) or edit (n=2 then new text) does.
func (c *chatWindow) back(n int) { c.msgs = c.msgs[:len(c.msgs)-n] }

func TestDerivedConversations(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			ag := newHistoryAgent()
			s, _ := newTestServer(t, &Options{Agent: ag})
			// expect sends text from c and checks the answer, and that
			// the session is one of known (wantNew false) or none of
			// them (wantNew true).
			expect := func(c *chatWindow, text, answer string, wantNew bool, known ...string) string {
				t.Helper()
				if got := c.send(t, s, text); got != answer {
					t.Fatalf("sent %q: answer %q, want %q", text, got, answer)
				}
				key, seeded := ag.lastTurn()
				if !strings.HasPrefix(key, DerivedKeyPrefix) {
					t.Fatalf("session %q is not a derived conversation", key)
				}
				if slices.Contains(known, key) == wantNew {
					t.Fatalf("sent %q: session %q, earlier %q, want new=%v", text, key, known, wantNew)
				}
				if seeded != (wantNew && len(c.msgs) > 2) {
					t.Fatalf("sent %q: seeded=%v, want a new session seeded only when it has a history", text, seeded)
				}
				return key
			}
			a := &chatWindow{system: "You are helpful.", stream: stream}
			b := &chatWindow{system: "You are helpful.", stream: stream}
			// Two windows opened alike, interleaved, keep their own
			// histories.
			ka := expect(a, "hello", "seen: hello", true)
			kb := expect(b, "hello", "seen: hello", true, ka)
			// Their transcripts are the same so far: each continues one
			// of the two sessions, neither forks.
			ka, kb = expect(a, "a2", "seen: hello | a2", false, ka, kb), expect(b, "b2", "seen: hello | b2", false, ka, kb)
			if ka == kb {
				t.Fatal("both windows continued one session")
			}
			// A changed system message is not a new conversation.
			a.system = "You are helpful. Today is Thursday."
			expect(a, "a3", "seen: hello | a2 | a3", false, ka)
			// Regenerate: the same question again without its answer.
			a.back(2)
			fork := expect(a, "a3", "seen: hello | a2 | a3", true, ka)
			// The fork continues; the original is left as it was.
			expect(a, "a4", "seen: hello | a2 | a3 | a4", false, fork)
			// Edit an earlier message: a fork from before it.
			a.back(6)
			edit := expect(a, "a2 edited", "seen: hello | a2 edited", true, fork)
			if edit == ka {
				t.Fatal("the edit continued the first session")
			}
			// The other window is untouched by all that.
			expect(b, "b3", "seen: hello | b2 | b3", false, kb)
			// A new chat starts a new session, even with the same words.
			c := &chatWindow{stream: stream}
			kc := expect(c, "hello", "seen: hello", true, kb)
			if kc == ka || kc == fork || kc == edit {
				t.Fatalf("new chat joined %s", kc)
			}
			// The original session still ends at a3 (its answer), so a
			// client showing that history continues it.
			ag.mu.Lock()
			n := len(ag.sessions[ka])
			ag.mu.Unlock()
			if n != 6 {
				t.Fatalf("first session has %d messages, want 6: the regenerate appended to it", n)
			}
		})
	}
}

func TestDerivedConversationExplicitUserUnchanged(t *testing.T) {
	ag := newHistoryAgent()
	s, _ := newTestServer(t, &Options{Agent: ag})
	for _, text := range []string{"one", "two"} {
		w := do(t, s, "POST", "/v1/chat/completions", testKey, `{"user":"alice","messages":[{"role":"user","content":"`+text+`"}]}`)
		if w.Code != 200 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	if key, seeded := ag.lastTurn(); key != "api:alice" || seeded {
		t.Fatalf("session %q seeded=%v, want api:alice continuing", key, seeded)
	}
	if s.convs.len() != 0 {
		t.Fatalf("explicit conversations entered the derived index (%d)", s.convs.len())
	}
}

func TestDerivedConversationIndexIsBounded(t *testing.T) {
	ag := newHistoryAgent()
	s, _ := newTestServer(t, &Options{Agent: ag, MaxConversations: 2})
	wins := []*chatWindow{{}, {}, {}}
	var keys []string
	for i, w := range wins {
		w.send(t, s, fmt.Sprint("open ", i))
		k, _ := ag.lastTurn()
		keys = append(keys, k)
	}
	if n := s.convs.len(); n != 2 {
		t.Fatalf("index holds %d conversations, want the bound of 2", n)
	}
	// The newest two continue; the oldest, forgotten, forks seeded from
	// what the client sent, so its history is not lost.
	wins[2].send(t, s, "more")
	if k, _ := ag.lastTurn(); k != keys[2] {
		t.Fatalf("newest conversation did not continue: %s", k)
	}
	if got := wins[0].send(t, s, "more"); got != "seen: open 0 | more" {
		t.Fatalf("forgotten conversation answered %q", got)
	}
	if k, seeded := ag.lastTurn(); k == keys[0] || !seeded {
		t.Fatalf("forgotten conversation: session %s seeded=%v, want a new seeded one", k, seeded)
	}
}

// blockingAgent holds each turn until released, counting turns in flight.
type blockingAgent struct {
	mu      sync.Mutex
	running int
	peak    int
	release chan struct{}
}

func (b *blockingAgent) Turn(ctx context.Context, req TurnRequest, emit func(Event)) (*TurnResult, error) {
	b.mu.Lock()
	b.running++
	b.peak = max(b.peak, b.running)
	b.mu.Unlock()
	defer func() { b.mu.Lock(); b.running--; b.mu.Unlock() }()
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return &TurnResult{Text: "ok"}, nil
}

// A second request with the same history while the first runs (a double
// send, a regenerate before the answer ends) must not join the running
// conversation, and distinct conversations run at once.
func TestDerivedConversationsInParallel(t *testing.T) {
	ag := &blockingAgent{release: make(chan struct{})}
	s, _ := newTestServer(t, &Options{Agent: ag})
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(t, s, "POST", "/v1/chat/completions", testKey, fmt.Sprintf(`{"messages":[{"role":"user","content":"chat %d"}]}`, i))
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ag.mu.Lock()
		running := ag.running
		ag.mu.Unlock()
		if running == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d distinct conversations running at once", running, n)
		}
		time.Sleep(time.Millisecond)
	}
	close(ag.release)
	wg.Wait()
}

func TestConversationClaimTakesTheHead(t *testing.T) {
	c := newConversations(0)
	turns := []TranscriptMessage{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}
	c.record("api:chat:1", hashTurns(turns))
	if k, ok := c.claim(hashTurns(turns)); !ok || k != "api:chat:1" {
		t.Fatalf("claim = %q, %v", k, ok)
	}
	if _, ok := c.claim(hashTurns(turns)); ok {
		t.Fatal("a conversation running a turn was claimed twice")
	}
}

func TestHashTurnsComparesTextTurns(t *testing.T) {
	base := []TranscriptMessage{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}
	same := []TranscriptMessage{{Role: "user", Content: " hi\n"}, {Role: "assistant", Content: "hello\n\n"}, {Role: "assistant", Content: "  "}}
	if hashTurns(base) != hashTurns(same) {
		t.Fatal("surrounding white space or an empty assistant turn changed the digest")
	}
	for _, other := range [][]TranscriptMessage{
		{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello!"}},
		{{Role: "assistant", Content: "hi"}, {Role: "assistant", Content: "hello"}},
		{{Role: "user", Content: "hihello"}},
		{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hel"}, {Role: "user", Content: "lo"}},
	} {
		if hashTurns(other) == hashTurns(base) {
			t.Fatalf("%v digests like %v", other, base)
		}
	}
	msgs := []chatMessage{
		{Role: "system", Content: json.RawMessage(`"be someone else"`)},
		{Role: "developer", Content: json.RawMessage(`"and more"`)},
		{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"x"}}]`)},
		{Role: "assistant", Content: json.RawMessage(`null`)},
		{Role: "tool", Content: json.RawMessage(`"42"`)},
		{Role: "assistant", Content: json.RawMessage(`"hello"`)},
	}
	got := clientHistory(msgs)
	if hashTurns(got) != hashTurns(base) {
		t.Fatalf("clientHistory = %+v, want the user and assistant text turns only", got)
	}
}

// A turn that fails leaves its conversation out of the index: the
// agent may have stored the question, so the client's retry (the same
// history and question) starts a new session seeded from the history
// rather than asking twice in the old one.
func TestFailedTurnForksOnRetry(t *testing.T) {
	ag := newHistoryAgent()
	s, _ := newTestServer(t, &Options{Agent: ag})
	w := &chatWindow{}
	w.send(t, s, "one")
	first, _ := ag.lastTurn()
	failing := &fakeAgent{err: &Error{Status: http.StatusBadGateway, Message: "provider down"}}
	s.agent = failing
	body := `{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"seen: one"},{"role":"user","content":"two"}]}`
	if r := do(t, s, "POST", "/v1/chat/completions", testKey, body); r.Code != http.StatusBadGateway {
		t.Fatalf("status %d", r.Code)
	}
	if failing.last().SessionKey != first {
		t.Fatalf("the failing turn ran in %s, want the conversation %s", failing.last().SessionKey, first)
	}
	s.agent = ag
	if got := w.send(t, s, "two"); got != "seen: one | two" {
		t.Fatalf("retry answered %q", got)
	}
	if k, seeded := ag.lastTurn(); k == first || !seeded {
		t.Fatalf("retry ran in %s (seeded %v), want a new seeded session", k, seeded)
	}
}
