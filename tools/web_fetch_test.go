package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeResolver answers from a table; a function entry can change its
// answer between calls, as a rebinding DNS server does.
type fakeResolver struct {
	mu    sync.Mutex
	calls map[string]int
	table map[string]func(call int) []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	f, ok := r.table[strings.ToLower(host)]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	r.calls[host]++
	var out []netip.Addr
	for _, s := range f(r.calls[host]) {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func fixed(addrs ...string) func(int) []string { return func(int) []string { return addrs } }

func corpusResolver() *fakeResolver {
	return &fakeResolver{table: map[string]func(int) []string{
		"public.test":  fixed("93.184.216.34"),
		"private.test": fixed("10.1.2.3"),
		"mixed.test":   fixed("93.184.216.34", "127.0.0.1"),
		"v6loop.test":  fixed("::1"),
	}}
}

// loopbackServer is an httptest server counting its requests.
type loopbackServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newLoopbackServer(t *testing.T, h http.HandlerFunc) *loopbackServer {
	s := &loopbackServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *loopbackServer) addrPort() netip.AddrPort {
	return netip.MustParseAddrPort(strings.TrimPrefix(s.URL, "http://"))
}

// allowOnly makes exactly one loopback server count as public, which is
// how the tests reach a server at all; every other address is judged by
// the real rules.
func allowOnly(w *WebFetch, s *loopbackServer) {
	ap := s.addrPort()
	w.guard.Allow = func(x netip.AddrPort) bool { return x == ap }
}

func fetch(w *WebFetch, u string) (string, error) {
	b, _ := json.Marshal(map[string]string{"url": u})
	out, err := w.Execute(context.Background(), b)
	return unfence(out), err
}

func TestWebFetchRedirectToLoopbackRefused(t *testing.T) {
	inner := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "INNER SECRET") })
	outer := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hello":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><head><script>var x=1;</script></head><body><h1>Hi &amp; welcome</h1><p>public page</p></body></html>")
		case "/to-ip":
			http.Redirect(w, r, inner.URL+"/", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, strings.Replace(inner.URL, "127.0.0.1", "localhost", 1)+"/", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	})
	w := NewWebFetch(&WebFetchOptions{Resolver: corpusResolver()})
	allowOnly(w, outer)

	out, err := fetch(w, outer.URL+"/hello")
	if err != nil {
		t.Fatalf("allowlisted server: %v", err)
	}
	if !strings.Contains(out, "Hi & welcome") || strings.Contains(out, "var x") || strings.Contains(out, "<p>") {
		t.Fatalf("HTML not reduced to text: %q", out)
	}
	for _, p := range []string{"/to-ip", "/to-localhost", "/to-metadata", "/to-file"} {
		out, err := fetch(w, outer.URL+p)
		if err == nil || strings.Contains(out, "INNER SECRET") {
			t.Fatalf("%s: redirect followed: %q %v", p, out, err)
		}
	}
	if n := inner.hits.Load(); n != 0 {
		t.Fatalf("the loopback target was reached %d times", n)
	}
}

// TestWebFetchDNSRebinding: the name is public when checked up front and
// loopback when dialed. The dial-time check refuses it.
func TestWebFetchDNSRebinding(t *testing.T) {
	target := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "SECRET") })
	res := &fakeResolver{table: map[string]func(int) []string{
		"rebind.test": func(call int) []string {
			if call == 1 {
				return []string{"93.184.216.34"}
			}
			return []string{"127.0.0.1"}
		},
	}}
	w := NewWebFetch(&WebFetchOptions{Resolver: res})
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	out, err := fetch(w, "http://rebind.test:"+port+"/")
	if err == nil || !errors.Is(err, ErrBlockedAddress) && !strings.Contains(err.Error(), "not public") {
		t.Fatalf("rebinding fetch: %q, %v", out, err)
	}
	if res.calls["rebind.test"] < 2 {
		t.Fatalf("the name was looked up %d times; the dial must look it up again", res.calls["rebind.test"])
	}
	if target.hits.Load() != 0 {
		t.Fatal("rebinding reached the loopback server")
	}
}

// TestWebFetchIgnoresProxy: a proxy in the environment is not used, since
// the proxy's address, not the checked one, would be connected to.
func TestWebFetchIgnoresProxy(t *testing.T) {
	proxy := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "VIA PROXY") })
	origin := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	w := NewWebFetch(nil)
	ap, pp := origin.addrPort(), proxy.addrPort()
	w.guard.Allow = func(x netip.AddrPort) bool { return x == ap || x == pp }
	out, err := fetch(w, origin.URL)
	if err != nil || !strings.Contains(out, "direct") {
		t.Fatalf("got %q, %v", out, err)
	}
	if proxy.hits.Load() != 0 {
		t.Fatal("request went through the proxy")
	}
}

func TestWebFetchBodyCapAndUTF8(t *testing.T) {
	big := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/bad" {
			w.Write([]byte("ok \xff\xfe bytes"))
			return
		}
		chunk := []byte(strings.Repeat("a", 1<<16))
		for i := 0; i < 48; i++ { // 3 MiB
			w.Write(chunk)
		}
	})
	w := NewWebFetch(nil)
	allowOnly(w, big)
	out, err := fetch(w, big.URL+"/big")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "[content truncated]") || len(out) > fetchMaxBody+1024 {
		t.Fatalf("not capped: %d bytes", len(out))
	}
	out, err = fetch(w, big.URL+"/bad")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ok \uFFFD") || !json.Valid([]byte(strconv.Quote(out))) || !utf8Valid(out) {
		t.Fatalf("invalid UTF-8 passed through: %q", out)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }
