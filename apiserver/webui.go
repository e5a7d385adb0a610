package apiserver

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

// The page, its script, stylesheet and icon are compiled into the binary:
// nothing is fetched from anywhere else, and system fonts are used. The
// text files are compiled in gzip-compressed (webui/*.gz, made from the
// files beside them by go generate; TestWebUIAssetsMatchTheirSources
// holds them to those), which keeps a third of their size in the binary
// and is what a browser is sent.
//
//go:generate sh -c "gzip -9 -n -k -f webui/index.html webui/app.js webui/app.css"
//go:embed webui/*.gz webui/icon.svg
var webuiFS embed.FS

// pageCSP allows exactly what the page uses: its own script, stylesheet,
// icon and fetches to this server. No inline script or style, so text a
// model writes into the transcript cannot run even if it were parsed.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// registerWebUI adds the browser chat routes. It is called only when the
// web UI is on; otherwise none of these routes exists.
func (s *Server) registerWebUI(mux *http.ServeMux) {
	static, err := fs.Sub(webuiFS, "webui")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	page := func(name, ctype string) http.HandlerFunc {
		gz, _ := fs.ReadFile(static, name+".gz")
		var body []byte
		var err error
		if gz != nil {
			body, err = gunzip(gz)
		} else {
			body, err = fs.ReadFile(static, name)
		}
		if err != nil {
			panic(err) // the embedded tree is fixed at build time
		}
		return func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", ctype)
			h.Set("Content-Security-Policy", pageCSP)
			h.Set("X-Frame-Options", "DENY")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			if gz == nil {
				_, _ = w.Write(body)
				return
			}
			h.Set("Vary", "Accept-Encoding")
			if acceptsGzip(r.Header.Get("Accept-Encoding")) {
				h.Set("Content-Encoding", "gzip")
				_, _ = w.Write(gz)
				return
			}
			_, _ = w.Write(body)
		}
	}
	mux.HandleFunc("GET /{$}", page("index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /webui/static/app.js", page("app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /webui/static/app.css", page("app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /webui/static/icon.svg", page("icon.svg", "image/svg+xml"))
	mux.HandleFunc("POST /webui/login", s.webLogin)
	mux.Handle("POST /webui/logout", s.requireAuth(http.HandlerFunc(s.webLogout)))
	mux.HandleFunc("GET /webui/config", s.webConfig)
	mux.Handle("GET /webui/session", s.requireAuth(http.HandlerFunc(s.webTranscript)))
}

// gunzip inflates one of the compiled-in assets.
func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// acceptsGzip reports whether an Accept-Encoding header value admits
// gzip (RFC 9110 12.5.3): named with a quality above zero, or, when not
// named, covered by "*" with a quality above zero.
func acceptsGzip(header string) bool {
	gzipQ, starQ := -1.0, -1.0
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ",")
		coding, params, _ := strings.Cut(part, ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			var err error
			if q, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
				continue
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// webLogin exchanges an API key for a session cookie. The key is checked on
// the same constant-time path as a bearer header, and failures are logged
// the same rate-limited way.
func (s *Server) webLogin(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		// A login form posted from another site could sign the browser
		// into a session the attacker chose.
		s.rejections.note(r, "cross-origin login")
		writeError(w, http.StatusForbidden, "permission_error", "cross-origin login refused")
		return
	}
	var req struct {
		Key string `json:"key"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if !s.validKey(strings.TrimSpace(req.Key)) {
		s.rejections.note(r, "invalid key at web login")
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "that key is not one of "+s.keysName())
		return
	}
	s.web.remove(r) // a new login never reuses an old cookie value
	token, _ := s.web.create()
	http.SetCookie(w, s.web.sessionCookie(r, token))
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) webLogout(w http.ResponseWriter, r *http.Request) {
	s.web.remove(r)
	http.SetCookie(w, s.web.sessionCookie(r, ""))
	w.WriteHeader(http.StatusNoContent)
}

// webConfig gives a logged-in page its CSRF token. It answers only to the
// cookie: a bearer caller has no browser session to protect.
func (s *Server) webConfig(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.web.fromRequest(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "not logged in")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"csrf": sess.csrf, "model": ModelID})
}

// webTranscript returns the user and assistant turns of the conversation
// the page names, so a reload shows it again. It only reads.
func (s *Server) webTranscript(w http.ResponseWriter, r *http.Request) {
	user := r.URL.Query().Get("user")
	if !validUser(user) {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "user must be 1 to 64 letters, digits or ._@+- starting with a letter or digit")
		return
	}
	msgs, err := s.transcripts.Transcript(r.Context(), "api:"+user)
	if err != nil {
		s.log.Error("web UI: reading transcript failed", "user", user, "err", err)
		writeError(w, http.StatusInternalServerError, "server_error", "reading the conversation failed; the server log has the details")
		return
	}
	out := make([]TranscriptMessage, 0, len(msgs))
	for _, m := range msgs {
		if (m.Role == "user" || m.Role == "assistant") && m.Content != "" {
			out = append(out, m)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": user, "messages": out})
}
