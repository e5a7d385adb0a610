package apiserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeTranscripts struct {
	msgs []TranscriptMessage
	keys []string
}

func (f *fakeTranscripts) Transcript(_ context.Context, key string) ([]TranscriptMessage, error) {
	f.keys = append(f.keys, key)
	return f.msgs, nil
}

// webRequest builds a same-origin browser request carrying cookie.
func webRequest(method, path, body, cookie string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = "example.test"
	if method != "GET" {
		r.Header.Set("Origin", "http://example.test")
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// login logs in with key and returns the session cookie and CSRF token.
func login(t *testing.T, s *Server) (cookie, csrf string) {
	t.Helper()
	w := serve(s, webRequest("POST", "/webui/login", `{"key":"`+testKey+`"}`, ""))
	if w.Code != 204 {
		t.Fatalf("login: %d %s", w.Code, w.Body)
	}
	for _, c := range w.Result().Cookies() {
		if c.Name == CookieName {
			cookie = c.Value
		}
	}
	w = serve(s, webRequest("GET", "/webui/config", "", cookie))
	var cfg struct{ CSRF string }
	if err := json.Unmarshal(w.Body.Bytes(), &cfg); err != nil || w.Code != 200 || cfg.CSRF == "" {
		t.Fatalf("config: %d %s", w.Code, w.Body)
	}
	return cookie, cfg.CSRF
}

func TestWebUIOffIsAbsent(t *testing.T) {
	// A server with the web UI on hands out a real cookie; a server with it
	// off must not honour even a cookie of the right shape.
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}})
	for _, p := range []string{"/", "/webui/static/app.js", "/webui/static/app.css", "/webui/config", "/webui/session?user=a", "/index.html"} {
		if w := serve(s, webRequest("GET", p, "", "")); w.Code != 404 {
			t.Errorf("GET %s: %d, want 404", p, w.Code)
		}
	}
	for _, p := range []string{"/webui/login", "/webui/logout"} {
		if w := serve(s, webRequest("POST", p, `{"key":"`+testKey+`"}`, "")); w.Code != 404 {
			t.Errorf("POST %s: %d, want 404", p, w.Code)
		}
	}
	r := webRequest("GET", "/v1/models", "", randomToken())
	if w := serve(s, r); w.Code != 401 {
		t.Fatalf("cookie honoured with the web UI off: %d", w.Code)
	}
}

func TestWebUILoginAndCookie(t *testing.T) {
	s, logs := newTestServer(t, &Options{Agent: &fakeAgent{res: &TurnResult{Text: "ok"}}, WebUI: true, Transcripts: &fakeTranscripts{}})
	if w := serve(s, webRequest("POST", "/webui/login", `{"key":"wrong"}`, "")); w.Code != 401 || len(w.Result().Cookies()) != 0 {
		t.Fatalf("wrong key: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	cross := webRequest("POST", "/webui/login", `{"key":"`+testKey+`"}`, "")
	cross.Header.Set("Origin", "https://evil.test")
	if w := serve(s, cross); w.Code != 403 || len(w.Result().Cookies()) != 0 {
		t.Fatalf("cross-origin login: %d", w.Code)
	}
	w := serve(s, webRequest("POST", "/webui/login", `{"key":"`+testKey+`"}`, ""))
	cookies := w.Result().Cookies()
	if w.Code != 204 || len(cookies) != 1 {
		t.Fatalf("login: %d %v", w.Code, cookies)
	}
	c := cookies[0]
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if c.Name != CookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || err != nil || len(raw) != 32 {
		t.Fatalf("cookie %+v (%d random bytes): want HttpOnly, SameSite=Strict, Path=/, not Secure over plain HTTP, 32 bytes", c, len(raw))
	}
	if strings.Contains(w.Header().Get("Set-Cookie"), testKey) || strings.Contains(logs.String(), testKey) {
		t.Fatal("the key leaked into the cookie or the log")
	}
}

func TestWebUICookieSecureOverTLS(t *testing.T) {
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, WebUI: true, Transcripts: &fakeTranscripts{}})
	ts := httptest.NewTLSServer(s)
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/webui/login", strings.NewReader(`{"key":"`+testKey+`"}`))
	req.Header.Set("Origin", ts.URL)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cs := resp.Cookies(); resp.StatusCode != 204 || len(cs) != 1 || !cs[0].Secure {
		t.Fatalf("over TLS: %d %+v", resp.StatusCode, cs)
	}
}

func TestWebUICookieNeedsCSRFForStateChanges(t *testing.T) {
	ag := &fakeAgent{res: &TurnResult{Text: "ok"}}
	s, _ := newTestServer(t, &Options{Agent: ag, WebUI: true, Transcripts: &fakeTranscripts{}})
	cookie, csrf := login(t, s)
	chat := `{"messages":[{"role":"user","content":"hi"}]}`
	for _, tt := range []struct {
		name   string
		edit   func(*http.Request)
		status int
	}{
		{"no csrf", func(r *http.Request) {}, 403},
		{"wrong csrf", func(r *http.Request) { r.Header.Set(CSRFHeader, strings.Repeat("A", len(csrf))) }, 403},
		{"cross origin", func(r *http.Request) { r.Header.Set(CSRFHeader, csrf); r.Header.Set("Origin", "http://evil.test") }, 403},
		{"no origin, cross-site fetch", func(r *http.Request) {
			r.Header.Set(CSRFHeader, csrf)
			r.Header.Del("Origin")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}, 403},
		{"no origin at all", func(r *http.Request) { r.Header.Set(CSRFHeader, csrf); r.Header.Del("Origin") }, 403},
		{"same origin with token", func(r *http.Request) { r.Header.Set(CSRFHeader, csrf) }, 200},
		{"sec-fetch same-origin with token", func(r *http.Request) {
			r.Header.Set(CSRFHeader, csrf)
			r.Header.Del("Origin")
			r.Header.Set("Sec-Fetch-Site", "same-origin")
		}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := webRequest("POST", "/v1/chat/completions", chat, cookie)
			tt.edit(r)
			if w := serve(s, r); w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
		})
	}
	// Reading needs no token.
	if w := serve(s, webRequest("GET", "/v1/models", "", cookie)); w.Code != 200 {
		t.Fatalf("GET with cookie: %d", w.Code)
	}
	// Bearer is checked first and asks for no origin or token.
	r := webRequest("POST", "/v1/chat/completions", chat, "")
	r.Header.Set("Origin", "http://elsewhere.test")
	r.Header.Set("Authorization", "Bearer "+testKey)
	if w := serve(s, r); w.Code != 200 {
		t.Fatalf("bearer from another origin: %d", w.Code)
	}
	// A wrong bearer is refused even next to a good cookie.
	r = webRequest("POST", "/v1/chat/completions", chat, cookie)
	r.Header.Set(CSRFHeader, csrf)
	r.Header.Set("Authorization", "Bearer nope")
	if w := serve(s, r); w.Code != 401 {
		t.Fatalf("bad bearer with good cookie: %d", w.Code)
	}
	// Logout needs the token too, then the cookie is dead.
	if w := serve(s, webRequest("POST", "/webui/logout", "", cookie)); w.Code != 403 {
		t.Fatalf("logout without token: %d", w.Code)
	}
	lr := webRequest("POST", "/webui/logout", "", cookie)
	lr.Header.Set(CSRFHeader, csrf)
	if w := serve(s, lr); w.Code != 204 {
		t.Fatalf("logout: %d", w.Code)
	}
	if w := serve(s, webRequest("GET", "/v1/models", "", cookie)); w.Code != 401 {
		t.Fatalf("cookie after logout: %d", w.Code)
	}
}

func TestWebSessionsExpireAndAreBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, WebUI: true, Transcripts: &fakeTranscripts{}, Now: clock, MaxWebSessions: 3, WebSessionTTL: time.Hour})
	first, _ := login(t, s)
	advance(30 * time.Minute)
	if w := serve(s, webRequest("GET", "/v1/models", "", first)); w.Code != 200 {
		t.Fatal("a session died before its TTL")
	}
	advance(59 * time.Minute) // use above extended it
	if w := serve(s, webRequest("GET", "/v1/models", "", first)); w.Code != 200 {
		t.Fatal("use did not extend the session")
	}
	advance(61 * time.Minute)
	if w := serve(s, webRequest("GET", "/v1/models", "", first)); w.Code != 401 {
		t.Fatal("an expired session was honoured")
	}
	var cookies []string
	for i := 0; i < 5; i++ {
		c, _ := login(t, s)
		cookies = append(cookies, c)
		advance(time.Minute)
	}
	if n := s.web.len(); n != 3 {
		t.Fatalf("%d sessions held, bound is 3", n)
	}
	for i, c := range cookies {
		want := 401
		if i >= 2 {
			want = 200
		}
		if w := serve(s, webRequest("GET", "/v1/models", "", c)); w.Code != want {
			t.Errorf("session %d: %d, want %d (the oldest make room)", i, w.Code, want)
		}
	}
}

func TestWebUITranscript(t *testing.T) {
	tr := &fakeTranscripts{msgs: []TranscriptMessage{
		{Role: "user", Content: "hi"}, {Role: "tool", Content: "secret tool output"}, {Role: "assistant", Content: ""},
		{Role: "system", Content: "prompt"}, {Role: "assistant", Content: "hello"},
	}}
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, WebUI: true, Transcripts: tr})
	cookie, _ := login(t, s)
	w := serve(s, webRequest("GET", "/webui/session?user=web-abc", "", cookie))
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"user":"web-abc"}` {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if tr.keys[0] != "api:web-abc" {
		t.Fatalf("read session %q", tr.keys[0])
	}
	if w := serve(s, webRequest("GET", "/webui/session?user=../x", "", cookie)); w.Code != 400 {
		t.Fatalf("bad user: %d", w.Code)
	}
	if w := serve(s, webRequest("GET", "/webui/session?user=web-abc", "", "")); w.Code != 401 {
		t.Fatalf("no cookie: %d", w.Code)
	}
	if w := serve(s, webRequest("GET", "/webui/config", "", "")); w.Code != 401 {
		t.Fatalf("config without cookie: %d", w.Code)
	}
}

func TestWebUIAssets(t *testing.T) {
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, WebUI: true, Transcripts: &fakeTranscripts{}})
	for _, tt := range []struct{ path, ctype string }{
		{"/", "text/html"}, {"/webui/static/app.js", "text/javascript"}, {"/webui/static/app.css", "text/css"}, {"/webui/static/icon.svg", "image/svg+xml"},
	} {
		w := serve(s, webRequest("GET", tt.path, "", ""))
		csp := w.Header().Get("Content-Security-Policy")
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), tt.ctype) || !strings.HasPrefix(csp, "default-src 'none';") {
			t.Fatalf("%s: %d %q %q", tt.path, w.Code, w.Header().Get("Content-Type"), csp)
		}
		if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
			t.Fatalf("CSP allows inline code or another origin: %q", csp)
		}
	}
	html, _ := os.ReadFile("webui/index.html")
	for _, re := range []string{`<script(?:\s[^>]*)?>\s*[^<\s]`, `<style`, `\sstyle=`, `\son[a-z]+=`, `https?://`} {
		if regexp.MustCompile(re).Match(html) {
			t.Errorf("index.html matches %s: inline code, inline style or a remote resource", re)
		}
	}
	js, _ := os.ReadFile("webui/app.js")
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(string(js), bad) {
			t.Errorf("app.js uses %s; model output must go in as text", bad)
		}
	}
	css, _ := os.ReadFile("webui/app.css")
	if strings.Contains(string(css), "url(") || strings.Contains(string(css), "@import") {
		t.Error("app.css loads a resource; use system fonts and nothing remote")
	}
}

// The compiled-in assets are the files beside them: an edit to the page,
// its script or its stylesheet needs `go generate ./apiserver`.
func TestWebUIAssetsMatchTheirSources(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		src, err := os.ReadFile("webui/" + name)
		if err != nil {
			t.Fatal(err)
		}
		gz, err := fs.ReadFile(webuiFS, "webui/"+name+".gz")
		if err != nil {
			t.Fatalf("%s is not compiled in compressed: %v", name, err)
		}
		got, err := gunzip(gz)
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("webui/%s.gz does not inflate to webui/%s (err %v): run go generate ./apiserver", name, name, err)
		}
		if _, err := fs.ReadFile(webuiFS, "webui/"+name); err == nil {
			t.Errorf("webui/%s is compiled in uncompressed as well", name)
		}
	}
}

// A browser that accepts gzip gets the compressed bytes, marked so; a
// client that does not gets the plain file. Either way the page is the
// source file.
func TestWebUIAssetsAreSentCompressedWhenAccepted(t *testing.T) {
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, WebUI: true, Transcripts: &fakeTranscripts{}})
	src, err := os.ReadFile("webui/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		accept string
		gzip   bool
	}{
		{"", false},
		{"gzip, deflate, br, zstd", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"gzip;q=0", false},
		{"gzip;q=0.000, *", false},
		{"*", true},
		{"*;q=0", false},
		{"identity", false},
	} {
		r := webRequest("GET", "/webui/static/app.js", "", "")
		if tt.accept != "" {
			r.Header.Set("Accept-Encoding", tt.accept)
		}
		w := serve(s, r)
		if w.Code != 200 || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q: %d, Vary %q", tt.accept, w.Code, w.Header().Get("Vary"))
		}
		body := w.Body.Bytes()
		if enc := w.Header().Get("Content-Encoding"); (enc == "gzip") != tt.gzip {
			t.Fatalf("Accept-Encoding %q: Content-Encoding %q, want gzip %v", tt.accept, enc, tt.gzip)
		}
		if tt.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("Accept-Encoding %q: %v", tt.accept, err)
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(zr); err != nil {
				t.Fatal(err)
			}
			body = b.Bytes()
		}
		if !bytes.Equal(body, src) {
			t.Fatalf("Accept-Encoding %q: the script served is not webui/app.js", tt.accept)
		}
	}
}
