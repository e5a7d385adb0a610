package memory

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxKeyLen is the longest session key, in bytes, that ValidateKey accepts.
// The same bound applies to the key's file name form (see ValidateKey), which
// keeps every file the store creates, including temporary and quarantine
// files, well under the 255-byte file name limit of common file systems.
const MaxKeyLen = 200

// ErrInvalidKey is wrapped by every error that ValidateKey returns, so callers
// can tell a rejected key apart from an I/O failure with errors.Is.
var ErrInvalidKey = errors.New("memory: invalid session key")

// ValidateKey reports whether key is acceptable as a session key, returning an
// error that wraps ErrInvalidKey, quotes the key and says what is wrong.
//
// A valid key has the form "channel:sender", for example "telegram:12345" or
// "api:alice". It is split at its first colon. The rules are deliberately
// conservative because the key becomes a file name:
//
//   - it is non-empty and at most MaxKeyLen bytes;
//   - it uses only ASCII letters, digits and the characters ":_-.@+", which
//     rules out path separators, NUL and other control characters and
//     non-ASCII text;
//   - it starts with a letter or digit, so file names are never hidden files
//     and never look like command-line flags;
//   - both the channel and the sender are non-empty, and the channel contains
//     no underscore (the sender may contain underscores and further colons);
//   - it does not end in ".history", which names history archives;
//   - its file name form is at most MaxKeyLen bytes.
//
// The file name form is built so that distinct keys always get distinct file
// names, even on case-insensitive file systems: the first colon becomes "_",
// every later colon becomes "=", and every uppercase letter becomes "^"
// followed by its lowercase form. So "telegram:12345" is stored as
// "telegram_12345.jsonl" and "api:Alice" as "api_^alice.jsonl". Because
// uppercase letters take two bytes in that form, a key within MaxKeyLen may
// still be rejected for the length of its file name.
//
// ValidateKey is a pure function and safe for concurrent use.
func ValidateKey(key string) error {
	bad := func(format string, args ...any) error { return badKey(key, format, args...) }
	switch {
	case key == "":
		return bad("key is empty")
	case len(key) > MaxKeyLen:
		return bad("key is %d bytes, more than the limit of %d", len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return bad("key is not valid UTF-8")
	case key == "." || key == "..":
		return bad("key is a relative path element")
	}
	// Report the most telling problem first: separators and control
	// characters usually mean a caller is passing something that is not a
	// key at all, which a generic "bad character" message would obscure.
	if i := strings.IndexAny(key, `/\`); i >= 0 {
		return bad("key contains path separator %q at byte %d", key[i], i)
	}
	for i, r := range key {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return bad("key contains control character %U at byte %d", r, i)
		}
	}
	for i, r := range key {
		if !keyRune(r) {
			return bad("key contains %q at byte %d; only ASCII letters, digits and %q are allowed", r, i, ":_-.@+")
		}
	}
	if !isAlnum(key[0]) {
		return bad("key must start with a letter or digit")
	}
	channel, sender, ok := strings.Cut(key, ":")
	switch {
	case !ok:
		return bad(`key must have the form "channel:sender"`)
	case channel == "":
		return bad("channel part before the first colon is empty")
	case sender == "":
		return bad("sender part after the first colon is empty")
	case strings.Contains(channel, "_"):
		return bad("channel part %q must not contain an underscore", channel)
	}
	if strings.HasSuffix(key, archiveSuffix) {
		// The history archive of "a:b" is stored as "a_b.history.jsonl",
		// which is also the file name of the key "a:b.history".
		return bad("key must not end in %q, which is reserved for history archives", archiveSuffix)
	}
	if n := stemLen(key); n > MaxKeyLen {
		return bad("key's file name form is %d bytes, more than the limit of %d (uppercase letters count twice)", n, MaxKeyLen)
	}
	return nil
}

// badKey is ValidateKey's error for key, kept out of line: inlined at each of
// its fourteen call sites it cost about 2 KB of binary.
//
//go:noinline
func badKey(key, format string, args ...any) error {
	return errorf("%w %q: %s", ErrInvalidKey, key, fmt.Sprintf(format, args...))
}

func keyRune(r rune) bool {
	if r >= 0x80 {
		return false
	}
	c := byte(r)
	return isAlnum(c) || strings.IndexByte(":_-.@+", c) >= 0
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// stemLen is the length of keyStem(key) without building it: every
// uppercase letter gains an escape byte.
func stemLen(key string) int {
	n := len(key)
	for i := 0; i < len(key); i++ {
		if c := key[i]; 'A' <= c && c <= 'Z' {
			n++
		}
	}
	return n
}

// keyStem maps a validated key to its file name without extension. The
// mapping is injective even under case folding: the output contains only
// lowercase letters, digits and "_-.@+^=", the single "_" produced for the
// first colon is the first "_" in the output (channels have none), and "^"
// and "=" never appear in keys, so keyFromStem can undo every step.
func keyStem(key string) string {
	var b strings.Builder
	b.Grow(stemLen(key))
	first := true
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case 'A' <= c && c <= 'Z':
			b.WriteByte('^')
			b.WriteByte(c + ('a' - 'A'))
		case c == ':' && first:
			b.WriteByte('_')
			first = false
		case c == ':':
			b.WriteByte('=')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// keyFromStem inverts keyStem. It reports false for names that keyStem
// cannot produce, such as files a user dropped into the directory.
func keyFromStem(stem string) (string, bool) {
	channel, sender, ok := strings.Cut(stem, "_")
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(stem))
	if !unescapeStem(&b, channel) {
		return "", false
	}
	b.WriteByte(':')
	if !unescapeStem(&b, sender) {
		return "", false
	}
	key := b.String()
	if ValidateKey(key) != nil || keyStem(key) != stem {
		return "", false
	}
	return key, true
}

func unescapeStem(b *strings.Builder, s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '^':
			i++
			if i == len(s) || s[i] < 'a' || s[i] > 'z' {
				return false
			}
			b.WriteByte(s[i] - ('a' - 'A'))
		case '=':
			b.WriteByte(':')
		default:
			b.WriteByte(c)
		}
	}
	return true
}
