package apiserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// CookieName is the browser session cookie of the web UI.
const CookieName = "joshbot_session"

// CSRFHeader carries a browser session's CSRF token on every cookie-
// authenticated request that changes state.
const CSRFHeader = "X-Joshbot-CSRF"

// webSession is one logged-in browser.
type webSession struct {
	csrf    string
	expires time.Time
}

// webSessions holds browser sessions in memory only: bounded, expiring, and
// gone on restart. The map is keyed by a hash of the cookie value so a
// lookup's timing says nothing useful about a guessed value.
type webSessions struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]*webSession
}

func newWebSessions(max int, ttl time.Duration, now func() time.Time) *webSessions {
	if max <= 0 {
		max = 64
	}
	if ttl <= 0 {
		ttl = 12 * time.Hour
	}
	return &webSessions{max: max, ttl: ttl, now: now, m: make(map[[32]byte]*webSession)}
}

// randomToken returns 32 bytes from crypto/rand, base64url-encoded.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create starts a session and returns its cookie value.
func (ws *webSessions) create() (token string, sess *webSession) {
	token = randomToken()
	sess = &webSession{csrf: randomToken()}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	now := ws.now()
	sess.expires = now.Add(ws.ttl)
	for k, s := range ws.m {
		if !now.Before(s.expires) {
			delete(ws.m, k)
		}
	}
	for len(ws.m) >= ws.max {
		// Full: the session closest to expiry, the least recently used,
		// makes room.
		var oldest [32]byte
		var first *webSession
		for k, s := range ws.m {
			if first == nil || s.expires.Before(first.expires) {
				oldest, first = k, s
			}
		}
		delete(ws.m, oldest)
	}
	ws.m[sha256.Sum256([]byte(token))] = sess
	return token, sess
}

// fromRequest returns the live session named by r's cookie, extending it.
func (ws *webSessions) fromRequest(r *http.Request) (*webSession, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, false
	}
	k := sha256.Sum256([]byte(c.Value))
	ws.mu.Lock()
	defer ws.mu.Unlock()
	s, ok := ws.m[k]
	if !ok {
		return nil, false
	}
	now := ws.now()
	if !now.Before(s.expires) {
		delete(ws.m, k)
		return nil, false
	}
	s.expires = now.Add(ws.ttl)
	return s, true
}

// remove ends the session named by r's cookie, if any.
func (ws *webSessions) remove(r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		ws.mu.Lock()
		delete(ws.m, sha256.Sum256([]byte(c.Value)))
		ws.mu.Unlock()
	}
}

// len reports how many sessions are held.
func (ws *webSessions) len() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.m)
}

// sameOrigin reports whether r comes from a page of this server: its Origin
// header (or, failing that, Sec-Fetch-Site) must say so. A request that
// says neither is refused, which is the safe side for a cookie.
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil {
			return false
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return u.Scheme == scheme && u.Host == r.Host && u.Path == ""
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// checkCSRF returns why a cookie-authenticated state change is refused, or
// "" to admit it.
func checkCSRF(r *http.Request, s *webSession) string {
	if !sameOrigin(r) {
		return "cross-origin request refused: cookie-authenticated requests must come from this server's own page"
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
		return "missing or wrong " + CSRFHeader + " header: read the token from GET /webui/config"
	}
	return ""
}

// sessionCookie is the cookie for token; an empty token clears it.
func (ws *webSessions) sessionCookie(r *http.Request, token string) *http.Cookie {
	c := &http.Cookie{
		Name:     CookieName,
		Value:    token,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
		Secure:   r.TLS != nil,
		MaxAge:   int(ws.ttl / time.Second),
	}
	if token == "" {
		c.MaxAge = -1
	}
	return c
}
