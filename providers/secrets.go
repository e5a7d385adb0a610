package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
)

// redactedMark replaces a credential the client holds wherever an error
// would otherwise quote it.
const redactedMark = "[REDACTED]"

// minScrubLen is the shortest credential removed from error text: a
// shorter value would turn up inside ordinary words.
const minScrubLen = 8

// credentialHeader reports whether a header (lower-cased name) carries a
// credential: Authorization, Cookie, and the API-key headers providers use
// (x-api-key, api-key, x-goog-api-key, ...).
func credentialHeader(lk string) bool {
	switch lk {
	case "authorization", "proxy-authorization", "cookie", "cookie2":
		return true
	}
	return strings.Contains(lk, "key") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") || strings.Contains(lk, "auth")
}

// credentials returns the credential values a request carried: each
// credential header's value, and for "Scheme value" forms the value alone.
func credentials(h http.Header) []string {
	var out []string
	for k, vs := range h {
		if !credentialHeader(strings.ToLower(k)) {
			continue
		}
		for _, v := range vs {
			out = append(out, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	return out
}

// scrub removes every credential in secrets from b, as written and as a
// JSON string would escape it, before any error text is built from b.
func scrub(b []byte, secrets []string) []byte {
	for _, s := range secrets {
		if len(s) < minScrubLen {
			continue
		}
		b = bytes.ReplaceAll(b, []byte(s), []byte(redactedMark))
		if q, err := json.Marshal(s); err == nil {
			if esc := q[1 : len(q)-1]; !bytes.Equal(esc, []byte(s)) {
				b = bytes.ReplaceAll(b, esc, []byte(redactedMark))
			}
		}
	}
	return b
}

// scrubString is [scrub] for a string.
func scrubString(s string, secrets []string) string { return string(scrub([]byte(s), secrets)) }

// errTooManyRedirects stops a redirect chain, as http.Client's default does.
var errTooManyRedirects = errors.New("stopped after 10 redirects")

// withCredentialRedirects returns a copy of hc (which the caller may share,
// so it is not changed) whose redirects drop every credential header when
// the scheme, host or port changes. net/http drops Authorization only when
// the host name changes, so a redirect to another port of the same host
// kept it, and it never drops API-key headers such as x-api-key.
func withCredentialRedirects(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !sameOrigin(via[0].URL.Scheme, via[0].URL.Host, req.URL.Scheme, req.URL.Host) {
			for k := range req.Header {
				if credentialHeader(strings.ToLower(k)) {
					req.Header.Del(k)
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errTooManyRedirects
		}
		return nil
	}
	return &c
}

// sameOrigin compares two URLs' scheme, host and port, with the scheme's
// default port filled in.
func sameOrigin(s1, h1, s2, h2 string) bool {
	if !strings.EqualFold(s1, s2) {
		return false
	}
	host1, port1 := splitHostPort(s1, h1)
	host2, port2 := splitHostPort(s2, h2)
	return strings.EqualFold(host1, host2) && port1 == port2
}

func splitHostPort(scheme, hostport string) (host, port string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	if port == "" {
		switch strings.ToLower(scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return host, port
}
