package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// MinSecretLen is the shortest value redacted by value. Shorter values
// would turn up inside ordinary words and garble the text.
const MinSecretLen = 8

// secretSet holds the exact values a Redactor removes, each with the other
// spellings it travels in. It is copied on write, so String reads it
// without a lock.
type secretSet struct {
	mu   sync.Mutex // serialises add
	seen map[string]bool
	// forms is sorted longest first, so a longer spelling is replaced
	// before a shorter one inside it could leave a fragment.
	forms atomic.Pointer[[]string]
}

func (s *secretSet) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < MinSecretLen || placeholder(v) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[v] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[v] = true
	forms := slices.Clone(s.list())
	for _, f := range secretForms(v) {
		if len(f) >= MinSecretLen && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	s.forms.Store(&forms)
}

func (s *secretSet) list() []string {
	if p := s.forms.Load(); p != nil {
		return *p
	}
	return nil
}

// secretForms returns v as it may appear in text: as is, percent-encoded
// (in a query or a path), and base64-encoded at each of the three
// alignments it can have inside a longer encoded string such as the
// "user:key" of HTTP Basic authentication.
func secretForms(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for pad := 0; pad < 3; pad++ {
			e := enc.EncodeToString([]byte(strings.Repeat(":", pad) + v))
			e = strings.TrimRight(e, "=")
			if pad > 0 {
				// The first group mixes the prefix with v; drop it.
				e = e[4:]
			}
			// An incomplete last group mixes v with whatever follows it;
			// drop it.
			e = e[:len(e)-len(e)%4]
			out = append(out, e)
		}
	}
	return out
}

// placeholder reports whether v is an example, not a credential: <key>,
// ${VAR}, $VAR, [REDACTED], ****.
func placeholder(v string) bool {
	switch {
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"),
		strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}"),
		strings.HasPrefix(v, "$") && !strings.ContainsAny(v[1:], " $"),
		strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"),
		strings.Trim(v, "*.xX") == "":
		return true
	}
	// sk-or-... or sk-…: a short prefix and an ellipsis show a key's
	// shape in help text; a credential is never that short.
	for _, dots := range []string{"...", "…"} {
		if head, ok := strings.CutSuffix(v, dots); ok && len(head) <= 8 {
			return true
		}
	}
	return false
}

// AddSecret teaches r the exact value of a credential, which [Redactor.String]
// and everything built on it then remove wherever it appears: bare, after
// a scheme (Bearer), as a URL's password, percent-encoded, or base64
// encoded. Values shorter than [MinSecretLen] and placeholders such as
// <key> are ignored. AddSecret is safe to call concurrently with
// redaction.
func (r *Redactor) AddSecret(v string) { r.secretSet().add(v) }

func (r *Redactor) secretSet() *secretSet {
	r.initSecrets.Do(func() { r.secrets = &secretSet{} })
	return r.secrets
}

// AddSecret teaches the current user's redactor, the one [String], [JSON]
// and [NewWriter] use, the exact value of a credential.
func AddSecret(v string) { std().AddSecret(v) }

// AddEnviron teaches the current user's redactor the value of every
// variable in environ (os.Environ form) whose name ends like a credential's:
// OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD, WEBHOOK_SECRET. PWD, OLDPWD
// and values that are absolute paths are left out.
func AddEnviron(environ []string) { std().AddEnviron(environ) }

// AddEnviron is the method form of the package function [AddEnviron].
func (r *Redactor) AddEnviron(environ []string) {
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		// PWD ends like "pwd" (a password) but holds the working
		// directory, and a path (GOOGLE_APPLICATION_CREDENTIALS) names
		// where a credential is, not the credential.
		if !ok || name == "PWD" || name == "OLDPWD" || strings.HasPrefix(val, "/") || !credentialName(name) {
			continue
		}
		r.AddSecret(val)
	}
}

// redactValues replaces every registered value in s.
func (r *Redactor) redactValues(s string) string {
	for _, f := range r.secretSet().list() {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Marker)
		}
	}
	return s
}
