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
	if got.String() != all.String() || !out.done {
		t.Fatalf("the slow client got %d of %d bytes (done %v), ending %q", got.Len(), all.Len(), out.done, raw[max(0, len(raw)-300):])
	}
	if p := s.peakQueued.Load(); p > DefaultStreamBuffer || p == 0 {
		t.Fatalf("held %d bytes for the slow client, want at most %d", p, DefaultStreamBuffer)
	}
}
