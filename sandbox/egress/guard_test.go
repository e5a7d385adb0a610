package egress_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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

	"github.com/joshbot/joshbot/sandbox/egress"
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

func (r *fakeResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
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

// TestURLCorpus runs testdata/url_corpus.tsv: every refused URL is
// refused by CheckURL for a policy reason, and by the guarded client
// without any connection being attempted; every public one passes
// CheckURL (public rows are never fetched: tests stay off the Internet).
func TestURLCorpus(t *testing.T) {
	f, err := os.Open("testdata/url_corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var asked atomic.Int32
	g := &egress.Guard{Resolver: corpusResolver(), Allow: func(netip.AddrPort) bool { asked.Add(1); return false }}
	client := g.Client(0)
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
			u, perr := url.Parse(raw)
			switch cols[1] {
			case "refuse":
				var err error
				if perr == nil {
					err = g.CheckURL(context.Background(), u)
					if err == nil {
						t.Fatalf("%s passed CheckURL", raw)
					}
					if strings.Contains(err.Error(), "looking up") {
						t.Fatalf("%s refused for the wrong reason (lookup, not policy): %v", raw, err)
					}
					if strings.Contains(err.Error(), "s3cr3tpw") {
						t.Fatalf("error repeats the URL's password: %v", err)
					}
				}
				// Refused for its address: the client alone, without the
				// up-front check, refuses it too before connecting.
				if !errors.Is(err, egress.ErrNonPublicAddress) {
					return
				}
				req, rerr := http.NewRequest(http.MethodGet, raw, nil)
				if rerr != nil {
					return
				}
				resp, err := client.Do(req)
				if err == nil {
					resp.Body.Close()
					t.Fatalf("%s fetched", raw)
				}
				if !errors.Is(err, egress.ErrNonPublicAddress) {
					t.Fatalf("%s: the client refused it for another reason: %v", raw, err)
				}
			case "public":
				if perr != nil {
					t.Fatal(perr)
				}
				if err := g.CheckURL(context.Background(), u); err != nil {
					t.Fatalf("%s refused: %v", raw, err)
				}
			default:
				t.Fatalf("verdict %q", cols[1])
			}
		})
	}
	if asked.Load() == 0 {
		t.Fatal("Allow was never asked: the corpus did not reach the address checks")
	}
	if n < 60 {
		t.Fatalf("corpus has %d cases, want at least 60", n)
	}
}

func TestParseHost(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"127.1", "127.0.0.1"}, {"2130706433", "127.0.0.1"}, {"0x7f000001", "127.0.0.1"},
		{"0x7f.0x0.0x0.0x1", "127.0.0.1"}, {"0177.0.0.1", "127.0.0.1"}, {"017700000001", "127.0.0.1"},
		{"10.1", "10.0.0.1"}, {"192.168.257", "192.168.1.1"}, {"::1", "::1"}, {"1.2.3.4", "1.2.3.4"},
		{"example.com", ""}, {"256.1.1.1", ""}, {"1.2.3.4.5", ""}, {"0x1g", ""}, {"08.1.1.1", ""}, {"4294967296", ""},
	} {
		a, ok := egress.ParseHost(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("ParseHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
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

// TestGuardDialTimeCheck: with no up-front check, the guarded transport
// still refuses a loopback server, and so does the Control hook alone,
// below any resolution.
func TestGuardDialTimeCheck(t *testing.T) {
	target := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "SECRET") })
	g := &egress.Guard{Resolver: corpusResolver()}
	resp, err := (&http.Client{Transport: g.Transport()}).Get(target.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("dial to loopback succeeded")
	}
	if !errors.Is(err, egress.ErrNonPublicAddress) {
		t.Fatalf("want ErrNonPublicAddress, got %v", err)
	}
	d := net.Dialer{Control: g.Control}
	if c, err := d.Dial("tcp", target.Listener.Addr().String()); err == nil {
		c.Close()
		t.Fatal("Control let a loopback connect through")
	}
	if target.hits.Load() != 0 {
		t.Fatal("target reached")
	}
}

// TestGuardDNSRebinding: the name is public when checked up front and
// loopback when dialled; the dial-time lookup refuses it.
func TestGuardDNSRebinding(t *testing.T) {
	target := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "SECRET") })
	res := &fakeResolver{table: map[string]func(int) []string{
		"rebind.test": func(call int) []string {
			if call == 1 {
				return []string{"93.184.216.34"}
			}
			return []string{"127.0.0.1"}
		},
	}}
	g := &egress.Guard{Resolver: res}
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	u, _ := url.Parse("http://rebind.test:" + port + "/")
	if err := g.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("first lookup is public, yet refused: %v", err)
	}
	resp, err := g.Client(0).Get(u.String())
	if err == nil {
		resp.Body.Close()
		t.Fatal("rebinding fetch succeeded")
	}
	if !errors.Is(err, egress.ErrNonPublicAddress) {
		t.Fatalf("want ErrNonPublicAddress, got %v", err)
	}
	if res.count("rebind.test") < 2 {
		t.Fatalf("the name was looked up %d times; the dial must look it up again", res.count("rebind.test"))
	}
	if target.hits.Load() != 0 {
		t.Fatal("rebinding reached the loopback server")
	}
}

// TestGuardRedirects: a server the guard admits redirects to a loopback
// address, a name that means this machine, cloud metadata and another
// scheme; none is followed and the inner server is never reached.
func TestGuardRedirects(t *testing.T) {
	inner := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "INNER SECRET") })
	_, innerPort, _ := net.SplitHostPort(inner.Listener.Addr().String())
	outer := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-ip":
			http.Redirect(w, r, inner.URL+"/", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, "http://localhost:"+innerPort+"/", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			fmt.Fprint(w, "hello")
		}
	})
	ap := outer.addrPort()
	g := &egress.Guard{Allow: func(x netip.AddrPort) bool { return x == ap }}
	c := g.Client(0)
	resp, err := c.Get(outer.URL + "/hello")
	if err != nil {
		t.Fatalf("the allowed server was refused: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello" {
		t.Fatalf("body %q", b)
	}
	for _, p := range []string{"/to-ip", "/to-localhost", "/to-metadata", "/to-file"} {
		resp, err := c.Get(outer.URL + p)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: redirect followed", p)
		}
		if !strings.Contains(err.Error(), "redirect to") {
			t.Fatalf("%s: refused for another reason: %v", p, err)
		}
	}
	if _, err := c.Get(outer.URL + "/loop"); err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("redirect loop: %v", err)
	}
	if n := inner.hits.Load(); n != 0 {
		t.Fatalf("the loopback target was reached %d times", n)
	}
}

// TestGuardIgnoresProxy: a proxy in the environment is not used, since
// the proxy's address, not the checked one, would be connected to.
func TestGuardIgnoresProxy(t *testing.T) {
	proxy := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "VIA PROXY") })
	origin := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	ap, pp := origin.addrPort(), proxy.addrPort()
	g := &egress.Guard{Allow: func(x netip.AddrPort) bool { return x == ap || x == pp }}
	resp, err := g.Client(0).Get(origin.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "direct" || proxy.hits.Load() != 0 {
		t.Fatalf("got %q, proxy hits %d", b, proxy.hits.Load())
	}
}

// FuzzCheckURL: no URL panics the up-front check, and whatever it admits
// as an IP literal, in any inet_aton form, is a public address.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.1/", "http://[::ffff:7f00:1]/", "http://0x7f.1/", "https://93.184.216.34:8443/x", "http://public.test/", "http://[fe80::1%25eth0]/"} {
		f.Add(s)
	}
	g := &egress.Guard{Resolver: corpusResolver()}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if g.CheckURL(context.Background(), u) != nil {
			return
		}
		if a, ok := egress.ParseHost(u.Hostname()); ok && !egress.PublicAddr(a) {
			t.Fatalf("%q admitted, but %s is not public", raw, a)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && !egress.PublicAddr(a) {
			t.Fatalf("%q admitted, but %s is not public", raw, a)
		}
	})
}
