package providers

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// countingConn counts the writes made to a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestRequestLeavesInOneWrite checks that a chat request of a fresh
// conversation (system prompt and tool definitions, some 20 KiB) leaves
// the client's transport in one write: with the default 4 KiB buffer it
// took two, and the provider woke for a first piece it could not use.
func TestRequestLeavesInOneWrite(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	tr := newTransport().(*http.Transport)
	var writes atomic.Int64
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &writes}, nil
	}
	defer tr.CloseIdleConnections()
	body := strings.Repeat("x", 20<<10)
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := writes.Load(); n != 1 {
		t.Errorf("a %d KiB request took %d writes, want 1", len(body)>>10, n)
	}
}
