package apiserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// hashKey reduces a key to a fixed length, so comparing hashes in constant
// time leaks neither the bytes nor the length of a configured key.
func hashKey(k string) [32]byte { return sha256.Sum256([]byte(k)) }

// validKey reports whether candidate is a configured key. Every key is
// compared, whatever the outcome, so timing says nothing about which one
// matched.
func (s *Server) validKey(candidate string) bool {
	h := hashKey(candidate)
	ok := 0
	for i := range s.keys {
		ok |= subtle.ConstantTimeCompare(h[:], s.keys[i][:])
	}
	return ok == 1
}

// requireAuth admits a request carrying a configured bearer key, or, with the
// web UI on, a browser session cookie. The bearer path is checked first and
// asks nothing more, so OpenAI clients are unaffected by the web UI; the
// cookie path additionally needs a same-origin request with the session's
// CSRF token for anything that changes state.
func (s *Server) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if authz := r.Header.Get("Authorization"); authz != "" {
			scheme, token, _ := strings.Cut(authz, " ")
			if !strings.EqualFold(scheme, "Bearer") || !s.validKey(strings.TrimSpace(token)) {
				s.reject(w, r, "invalid bearer key")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if s.webui {
			if sess, ok := s.web.fromRequest(r); ok {
				if r.Method != http.MethodGet && r.Method != http.MethodHead {
					if reason := checkCSRF(r, sess); reason != "" {
						s.rejections.note(r, reason)
						writeError(w, http.StatusForbidden, "permission_error", reason)
						return
					}
				}
				next.ServeHTTP(w, r)
				return
			}
		}
		s.reject(w, r, "no credentials")
	})
}

// reject answers 401 without echoing anything the client sent.
func (s *Server) reject(w http.ResponseWriter, r *http.Request, reason string) {
	s.rejections.note(r, reason)
	w.Header().Set("WWW-Authenticate", `Bearer realm="joshbot"`)
	writeError(w, http.StatusUnauthorized, "invalid_request_error",
		"missing or invalid API key: send Authorization: Bearer <one of "+s.keysName()+">")
}

// rejectLog logs failed authentications, at most one line per interval with
// a count of those it held back, so a flood of bad requests cannot flood the
// log. It never logs what the client sent as a credential.
type rejectLog struct {
	log      *slog.Logger
	now      func() time.Time
	interval time.Duration

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newRejectLog(log *slog.Logger, now func() time.Time) *rejectLog {
	return &rejectLog{log: log, now: now, interval: 10 * time.Second}
}

func (l *rejectLog) note(r *http.Request, reason string) {
	l.mu.Lock()
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	held := l.suppressed
	l.last, l.suppressed = now, 0
	l.mu.Unlock()
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	l.log.Warn("api: authentication failed", "remote", host, "method", r.Method, "path", r.URL.Path, "reason", reason, "suppressed_since_last", held)
}
