package apiserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// returningAgent is a fakeAgent that reports when its turn returned.
type returningAgent struct {
	fakeAgent
	returned chan struct{}
}

func (r *returningAgent) Turn(ctx context.Context, req TurnRequest, emit func(Event)) (*TurnResult, error) {
	defer close(r.returned)
	return r.fakeAgent.Turn(ctx, req, emit)
}

// slowStream runs a streamed turn of ag for a client that does not read
// until the turn has returned, then reads everything: it returns the
// streamed text and whether [DONE] ended it.
func slowStream(t *testing.T, s *Server, ag *returningAgent) (string, bool) {
	t.Helper()
	ts := httptest.NewServer(s)
	defer ts.Close()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"stream":true,"messages":[{"role":"user","content":"a lot"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", testKey, len(body), body)
	select {
	case <-ag.returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn waited for a client that does not read")
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := parseSSE(t, string(raw))
	var got strings.Builder
	for _, c := range decodeChunks(t, out.data) {
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				got.WriteString(*ch.Delta.Content)
			}
		}
	}
	return got.String(), out.done
}

// TestSlowReaderNeverHoldsTheTurn: a turn streams 8 MiB to a client that
// does not read. The turn returns at once (its conversation is free), no
// more than the stream buffer is held for the client, and when the client
// reads at last it gets the whole answer, then [DONE].
func TestSlowReaderNeverHoldsTheTurn(t *testing.T) {
	piece := strings.Repeat("x", 16<<10-1) + "\n"
	var events []Event
	var all strings.Builder
	for range 512 {
		events = append(events, Event{Delta: piece})
		all.WriteString(piece)
	}
	ag := &returningAgent{fakeAgent: fakeAgent{events: events, res: &TurnResult{Text: all.String()}}, returned: make(chan struct{})}
	s, _ := newTestServer(t, &Options{Agent: ag})
	got, done := slowStream(t, s, ag)
	if got != all.String() || !done {
		t.Fatalf("the slow client got %d of %d bytes (done %v)", len(got), all.Len(), done)
	}
	if p := s.peakQueued.Load(); p > DefaultStreamBuffer || p == 0 {
		t.Fatalf("held %d bytes for the slow client, want at most %d", p, DefaultStreamBuffer)
	}
}

// TestSlowReaderGetsTheAnswerAfterATool: when the stream fell behind
// while the model was writing before a tool call, the client still gets
// the whole final answer (after what it was sent), then [DONE].
func TestSlowReaderGetsTheAnswerAfterATool(t *testing.T) {
	narration := strings.Repeat("n", 16<<10)
	answer := strings.Repeat("a", 16<<10)
	var events []Event
	var final strings.Builder
	for range 512 {
		events = append(events, Event{Delta: narration})
	}
	events = append(events, Event{Progress: &Progress{Tool: "shell", Detail: "ls"}})
	for range 128 {
		events = append(events, Event{Delta: answer})
		final.WriteString(answer)
	}
	ag := &returningAgent{fakeAgent: fakeAgent{events: events, res: &TurnResult{Text: final.String()}}, returned: make(chan struct{})}
	s, _ := newTestServer(t, &Options{Agent: ag})
	got, done := slowStream(t, s, ag)
	if !strings.HasSuffix(got, "\n\n"+final.String()) || !strings.HasPrefix(got, narration) || !done {
		t.Fatalf("the slow client got %d bytes (done %v), want the narration it was sent, then the whole %d-byte answer", len(got), done, final.Len())
	}
	if len(got) >= 512*len(narration)+final.Len() {
		t.Fatal("the stream never fell behind: the test did not exercise the answer sent after the turn")
	}
}
