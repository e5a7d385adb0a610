package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
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

// TestSSRFCorpus runs testdata/ssrf_corpus.tsv: every refused URL fails
// before any connection, through the real tool with a dialer that records
// attempts; every public one passes the up-front check.
func TestSSRFCorpus(t *testing.T) {
	f, err := os.Open("testdata/ssrf_corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWebFetch(&WebFetchOptions{Resolver: corpusResolver()})
	var dials atomic.Int32
	w.guard.allow = func(netip.AddrPort) bool { dials.Add(1); return false }
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 3 {
			t.Fatalf("line %d: want 3 columns", line)
		}
		raw, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		n++
		t.Run(strconv.Itoa(line)+"_"+cols[2], func(t *testing.T) {
			switch cols[1] {
			case "refuse":
				dials.Store(0)
				args, _ := json.Marshal(map[string]string{"url": raw})
				out, err := w.Execute(context.Background(), args)
				if err == nil {
					t.Fatalf("%s fetched: %q", raw, out)
				}
				if strings.Contains(err.Error(), "looking up") || strings.Contains(err.Error(), "connection refused") {
					t.Fatalf("%s refused for the wrong reason (lookup or connect, not policy): %v", raw, err)
				}
				if strings.Contains(err.Error(), "s3cr3tpw") {
					t.Fatalf("error repeats the URL's password: %v", err)
				}
			case "public":
				u, err := url.Parse(raw)
				if err != nil {
					t.Fatal(err)
				}
				g := newSSRFGuard(corpusResolver())
				if err := g.checkURL(context.Background(), u); err != nil {
					t.Fatalf("%s refused: %v", raw, err)
				}
			default:
				t.Fatalf("verdict %q", cols[1])
			}
		})
	}
	if n < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", n)
	}
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
	w.guard.allow = func(x netip.AddrPort) bool { return x == ap }
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

// TestWebFetchDialTimeCheck shows the second check on its own: the
// up-front check is skipped, and the dialer still refuses the connection.
func TestWebFetchDialTimeCheck(t *testing.T) {
	target := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "SECRET") })
	g := newSSRFGuard(corpusResolver())
	client := &http.Client{Transport: &http.Transport{DialContext: g.dialContext}}
	resp, err := client.Get(target.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("dial to loopback succeeded")
	}
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("want ErrBlockedAddress, got %v", err)
	}
	// And the Control hook alone, below any resolution.
	d := net.Dialer{Control: g.control}
	if c, err := d.Dial("tcp", target.Listener.Addr().String()); err == nil {
		c.Close()
		t.Fatal("Control let a loopback connect through")
	}
	if target.hits.Load() != 0 {
		t.Fatal("target reached")
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
	w.guard.allow = func(x netip.AddrPort) bool { return x == ap || x == pp }
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

func TestParseHostIP(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"127.1", "127.0.0.1"}, {"2130706433", "127.0.0.1"}, {"0x7f000001", "127.0.0.1"},
		{"0x7f.0x0.0x0.0x1", "127.0.0.1"}, {"0177.0.0.1", "127.0.0.1"}, {"017700000001", "127.0.0.1"},
		{"10.1", "10.0.0.1"}, {"192.168.257", "192.168.1.1"}, {"::1", "::1"}, {"1.2.3.4", "1.2.3.4"},
		{"example.com", ""}, {"256.1.1.1", ""}, {"1.2.3.4.5", ""}, {"0x1g", ""}, {"08.1.1.1", ""}, {"4294967296", ""},
	} {
		a, ok := parseHostIP(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseHostIP(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
