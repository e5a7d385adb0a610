package redact

import "strings"

// credentialSuffixes end the names of settings that hold a credential:
// OPENAI_API_KEY, client_secret, GITHUB_TOKEN, DB_PASSWORD, oauth.
// "tokens" (max_tokens) and "api_key_env" (a variable's name) do not end
// in one, which is the point of matching the end.
var credentialSuffixes = []string{
	"apikey", "api_key", "api-key", "_key", ".key", "-key", "secret", "token", "password", "passwd",
	"pwd", "passphrase", "credential", "credentials", "auth",
}

func credentialName(name string) bool {
	n := strings.ToLower(name)
	for _, suf := range credentialSuffixes {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// redactAssignments replaces the value of every NAME=value or NAME: value
// (NAME optionally quoted, the value bare or quoted) whose NAME ends in a
// credential word. It is a hand-written scan because the equivalent
// regular expression dominated the cost of every log line.
func redactAssignments(s string) string {
	if !strings.ContainsAny(s, "=:") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		// The name: back over blanks and an optional closing quote.
		j := i
		for j > 0 && isSpace(s[j-1]) {
			j--
		}
		if j > 0 && s[j-1] == '"' {
			j--
		}
		k := j
		for k > 0 && isNameByte(s[k-1]) {
			k--
		}
		if k == j || k < last || !credentialName(s[k:j]) {
			continue
		}
		// The value: after blanks and an optional opening quote.
		v := i + 1
		for v < len(s) && isSpace(s[v]) {
			v++
		}
		var end int
		quote := byte(0)
		if v < len(s) && (s[v] == '"' || s[v] == '\'') {
			quote = s[v]
			v++
			e := strings.IndexByte(s[v:], quote)
			if e < 0 {
				continue
			}
			end = v + e
		} else if v < len(s) && s[v] == '<' && angleEnd(s, v) > 0 {
			// <your key>: a placeholder, blanks and all.
			continue
		} else {
			end = valueEnd(s, v)
			// auth=Bearer <key>: the credential is the word after the
			// scheme, which stays, as in an Authorization header.
			if scheme := s[v:end]; authScheme(scheme) && end < len(s) && isSpace(s[end]) {
				w := end
				for w < len(s) && isSpace(s[w]) {
					w++
				}
				if e := valueEnd(s, w); e > w {
					v, end = w, e
				}
			}
		}
		val := s[v:end]
		if val == "" || val == Marker || placeholder(val) {
			continue
		}
		b.WriteString(s[last:v])
		b.WriteString(Marker)
		last = end
		i = end - 1
		if quote != 0 {
			i = end
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns where an unquoted value starting at v ends: at a blank,
// a quote, a separator, or a closing bracket, which belongs to the text
// around the value, not to it.
func valueEnd(s string, v int) int {
	if strings.HasPrefix(s[v:], Marker) {
		return v + len(Marker)
	}
	end := v
	for end < len(s) && !strings.ContainsRune(" \t\r\n\"',;&)]}", rune(s[end])) {
		end++
	}
	return end
}

// angleEnd returns the index just past the '>' that closes the '<' at v
// on the same line, within a placeholder's length, or 0 when there is none.
func angleEnd(s string, v int) int {
	for i := v + 1; i < len(s) && i < v+40; i++ {
		switch s[i] {
		case '>':
			return i + 1
		case '<', '\n', '\r', '"', '\'':
			return 0
		}
	}
	return 0
}

// authSchemes are the HTTP authentication schemes a credential follows.
var authSchemes = []string{"bearer", "basic", "bot", "token", "digest", "negotiate", "apikey", "api-key", "oauth", "sso-key"}

func authScheme(w string) bool {
	for _, s := range authSchemes {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}
