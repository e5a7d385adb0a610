// Package redact removes credentials and the home directory from text
// before joshbot logs or prints it.
//
// The exact values of the credentials joshbot was configured with
// ([AddSecret], [AddEnviron]) are removed wherever they appear, in any
// spelling they travel in (bare, after Bearer, in a URL, percent-encoded,
// base64 inside Basic credentials).
//
// Vendor key shapes (OpenAI, Anthropic, OpenRouter, Groq, GitHub, Slack,
// AWS, Telegram bot tokens), the credential of an Authorization header
// (its scheme is kept, so "Bearer [REDACTED]" still says what kind of
// credential it was), credential-shaped assignments (api_key=..., a
// PASSWORD: ... line) and passwords in URLs become [REDACTED]; the home
// directory becomes ~. [Writer] applies this to a byte stream line by
// line, for the log; [JSON] applies it to a JSON document without ever
// producing invalid JSON.
//
// Session files on disk are deliberately not redacted: rewriting stored
// conversation content would corrupt legitimate text.
package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Marker replaces every redacted credential.
const Marker = "[REDACTED]"

var (
	// authHeader keeps the header name, the separator and the scheme.
	authHeader = &lazyRegexp{expr: `(?i)\b((?:proxy-)?authorization"?\s*[:=]\s*"?)([A-Za-z][A-Za-z0-9_\-]*\s+)?([^\s"',;)\]}]+)`}

	// urlPassword matches the password of scheme://user:password@host.
	urlPassword = &lazyRegexp{expr: `(://[^/\s:@]+:)([^/\s@]+)(@)`}
)

// Redactor redacts text for one home directory. The zero value redacts
// credentials but not a home directory. A Redactor is safe for concurrent
// use.
type Redactor struct {
	home string
	// secrets holds values added by AddSecret; nil until the first.
	secrets     *secretSet
	initSecrets sync.Once
	// homeRe matches home where it is a path; compiled on first use, as
	// most text never contains home. Nil without a home.
	homeRe *lazyRegexp
}

// New returns a Redactor that shows home as ~. Empty home, or "/", turns
// that rewrite off.
func New(home string) *Redactor {
	r := &Redactor{}
	home = strings.TrimRight(home, "/")
	if home != "" {
		r.home = home
		r.homeRe = &lazyRegexp{expr: regexp.QuoteMeta(home) + `(/|[^A-Za-z0-9_.\-]|\.\s|\.$|$)`}
	}
	return r
}

var (
	stdOnce sync.Once
	stdVal  *Redactor
)

// std is the current user's redactor, built on first use so that start-up
// does no work for it.
func std() *Redactor {
	stdOnce.Do(func() { stdVal = buildStd() })
	return stdVal
}

func buildStd() *Redactor {
	h, _ := os.UserHomeDir()
	return New(h)
}

// String redacts s with the current user's home directory.
func String(s string) string { return std().String(s) }

// HomePath shows p with the current user's home directory as ~.
func HomePath(p string) string { return std().HomePath(p) }

// JSON redacts a JSON document with the current user's home directory.
func JSON(doc []byte) []byte { return std().JSON(doc) }

// String returns s with every credential replaced by [Marker] and the home
// directory shown as ~.
func (r *Redactor) String(s string) string {
	s = r.redactValues(s)
	s = redactVendorKeys(s)
	if !containsFold(s, "authorization") {
		return r.HomePath(redactAssignmentsAndURLs(s))
	}
	s = authHeader.get().ReplaceAllStringFunc(s, func(m string) string {
		sub := authHeader.get().FindStringSubmatch(m)
		if sub[3] == Marker || sub[3] == Marker[:len(Marker)-1] || placeholder(sub[3]) {
			return m
		}
		return sub[1] + sub[2] + Marker
	})
	return r.HomePath(redactAssignmentsAndURLs(s))
}

func redactAssignmentsAndURLs(s string) string {
	s = redactAssignments(s)
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = urlPassword.get().ReplaceAllString(s, "${1}"+Marker+"${3}")
	}
	return s
}

// vendorKey is one vendor's key shape and a literal every such key
// contains. Each shape is its own expression, run only when its literal is
// present: one alternation of them all defeats the regexp package's
// literal-prefix scan and made every log line slow. Each is compiled the
// first time its literal appears, so text that holds none (most output)
// compiles none; the table is static data, so start-up does no work.
type vendorKey struct {
	trigger string
	expr    string
	once    sync.Once
	re      *regexp.Regexp
}

// compiled returns the key's expression, compiling it on first use.
func (k *vendorKey) compiled() *regexp.Regexp {
	k.once.Do(func() { k.re = regexp.MustCompile(k.expr) })
	return k.re
}

var vendorKeys = [...]vendorKey{
	{trigger: "sk-", expr: `sk-(?:ant-|or-v1-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}`}, // Anthropic, OpenRouter, OpenAI and compatibles
	{trigger: "gsk_", expr: `gsk_[A-Za-z0-9]{20,}`},                                        // Groq
	{trigger: "_", expr: `gh[pousr]_[A-Za-z0-9]{20,}`},                                     // GitHub tokens
	{trigger: "github_pat_", expr: `github_pat_[A-Za-z0-9_]{20,}`},                         // GitHub fine-grained tokens
	{trigger: "xox", expr: `xox[abposr]-[A-Za-z0-9\-]{10,}`},                               // Slack tokens
	{trigger: "xapp-", expr: `xapp-[0-9]-[A-Za-z0-9\-]{10,}`},                              // Slack app tokens
	{trigger: "A", expr: `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`},                        // AWS access key ids
	{trigger: ":AA", expr: `[0-9]{6,12}:AA[A-Za-z0-9_\-]{30,}`},                            // Telegram bot tokens
	{trigger: "nvapi-", expr: `nvapi-[A-Za-z0-9_\-]{20,}`},                                 // NVIDIA
	{trigger: "exa_", expr: `exa_[A-Za-z0-9]{20,}`},                                        // Exa
}

func redactVendorKeys(s string) string {
	for i := range vendorKeys {
		if k := &vendorKeys[i]; strings.Contains(s, k.trigger) {
			s = k.compiled().ReplaceAllLiteralString(s, Marker)
		}
	}
	return s
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// HomePath returns s with the home directory shown as ~.
func (r *Redactor) HomePath(s string) string {
	if r.homeRe == nil || !strings.Contains(s, r.home) {
		return s
	}
	return r.homeRe.get().ReplaceAllString(s, "~$1")
}

// secretKey reports whether a JSON object key names a credential.
func secretKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if !isNameByte(k[i]) {
			return false
		}
	}
	return credentialName(k)
}

// authKey reports whether a JSON object key is an Authorization header.
func authKey(k string) bool {
	return strings.EqualFold(k, "authorization") || strings.EqualFold(k, "proxy-authorization")
}

// JSON returns doc with every string value redacted and every value under
// a credential-shaped key replaced, re-encoded. The result is always valid
// JSON: a document that does not parse comes back as one JSON string of
// its redacted text. Redacting the encoded bytes directly would not be
// safe: the byte-stream rules match name/value pairs, which is exactly
// what JSON is built from, and can cut through quotes.
func (r *Redactor) JSON(doc []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return r.encode(r.String(string(doc)))
	}
	return r.encode(r.value(v))
}

func (r *Redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		for i := range x {
			x[i] = r.value(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if str, isStr := val.(string); isStr && authKey(k) {
				scheme, _, found := strings.Cut(strings.TrimSpace(str), " ")
				if found {
					out[k] = scheme + " " + Marker
				} else {
					out[k] = Marker
				}
				continue
			}
			if _, isStr := val.(string); isStr && secretKey(k) {
				out[r.String(k)] = Marker
				continue
			}
			out[r.String(k)] = r.value(val)
		}
		return out
	}
	return v
}

func (r *Redactor) encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`"` + Marker + `"`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
