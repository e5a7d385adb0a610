package serve

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestSlowReaderDoesNotPinItsConversation: a client asks for a streamed
// 8 MiB answer and never reads it. The turn is saved and the conversation
// released while the bytes wait for that client, so the same user's next
// request is answered at once, not after the slow stream's write deadline.
func TestSlowReaderDoesNotPinItsConversation(t *testing.T) {
	srv := providertest.NewServer(t)
	big := strings.Repeat("All work and no play makes Jack a dull boy.\n", (8<<20)/44)
	srv.Enqueue(providertest.Reply{Content: big, Chunks: 512}, providertest.Text("second answer"))
	home := t.TempDir()
	base, stop := startServerIn(t, srv, home, func(c *config.Config) { c.Agents.Defaults.MaxAnswerBytes = config.MaxAnswerBytes })
	defer stop()

	// A client with a tiny receive window that never reads.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"joshbot","user":"slow","stream":true,"messages":[{"role":"user","content":"write a lot"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testKey, len(body), body)
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("the big answer was never asked for")
	}

	start := time.Now()
	client := &http.Client{Timeout: 20 * time.Second}
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(`{"model":"joshbot","user":"slow","messages":[{"role":"user","content":"and now?"}]}`))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the same user's next request waited for the slow reader: %v after %s", err, time.Since(start))
	}
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("next request: %d", resp.StatusCode)
	}
	if took > 10*time.Second {
		t.Fatalf("the next request took %s: the slow reader pinned the conversation", took)
	}
	// The big answer was saved before its bytes reached the client.
	store, err := memory.NewStore(filepath.Join(home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.Load("api:slow")
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	for _, m := range sess.Messages {
		saved = append(saved, fmt.Sprintf("%s %d", m.Role, len(m.Content)))
	}
	if len(sess.Messages) < 4 || sess.Messages[1].Role != "assistant" || !strings.HasPrefix(sess.Messages[1].Content, big[:1024]) {
		t.Fatalf("the session holds %q, want the big answer and then the next turn", saved)
	}
	conn.Close()
	client.CloseIdleConnections()
}
