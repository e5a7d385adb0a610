package memory

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key  string
		want string // substring of the error; "" means valid
	}{
		{"telegram:123", ""},
		{"api:alice", ""},
		{"api:Alice.Smith+tag@example.com", ""},
		{"discord:guild:user_1", ""},
		{"cli:-", ""},
		{"a:" + strings.Repeat("x", MaxKeyLen-2), ""},
		{"", "empty"},
		{".", "relative path element"},
		{"..", "relative path element"},
		{"api:notes.history", "reserved for history archives"},
		{"api:notes.History", ""},
		{"a:" + strings.Repeat("y", 298), "more than the limit"},
		{"../x", "path separator"},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{"api:a/b", "path separator"},
		{"api:a\x00b", "control character"},
		{"api:a\nb", "control character"},
		{"api:a\u0085b", "control character"},
		{"api:\xff", "not valid UTF-8"},
		{strings.Repeat("a", 300), "300 bytes"},
		{"a:" + strings.Repeat("x", MaxKeyLen-1), "more than the limit"},
		{"api:" + strings.Repeat("X", 150), "file name form"},
		{"api:al ice", `contains ' '`},
		{"api:älice", `contains 'ä'`},
		{"api:a*b", `contains '*'`},
		{"api:a%3Ab", `contains '%'`},
		{"api:a=b", `contains '='`},
		{"api:a^b", `contains '^'`},
		{"telegram", "channel:sender"},
		{"telegram:", "sender part"},
		{":123", "start with a letter or digit"},
		{".hidden:1", "start with a letter or digit"},
		{"-rf:1", "start with a letter or digit"},
		{"tele_gram:1", "underscore"},
	}
	for _, tt := range tests {
		err := ValidateKey(tt.key)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ValidateKey(%q) = %v, want nil", tt.key, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ValidateKey(%q) = nil, want error containing %q", tt.key, tt.want)
			continue
		}
		if !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, does not wrap ErrInvalidKey", tt.key, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.want) {
			t.Errorf("ValidateKey(%q) = %q, want it to contain %q", tt.key, msg, tt.want)
		}
		if len(tt.key) < 60 && !strings.Contains(msg, fmt.Sprintf("%q", tt.key)) {
			t.Errorf("ValidateKey(%q) = %q, does not name the key", tt.key, msg)
		}
	}
}

func TestKeyStem(t *testing.T) {
	tests := map[string]string{
		"telegram:12345":      "telegram_12345",
		"api:alice":           "api_alice",
		"api:Alice":           "api_^alice",
		"discord:guild:u_1":   "discord_guild=u_1",
		"API:x":               "^a^p^i_x",
		"mail:a.b+c@d-e.test": "mail_a.b+c@d-e.test",
	}
	for key, want := range tests {
		if err := ValidateKey(key); err != nil {
			t.Fatalf("ValidateKey(%q): %v", key, err)
		}
		if got := keyStem(key); got != want {
			t.Errorf("keyStem(%q) = %q, want %q", key, got, want)
		}
		if got := stemLen(key); got != len(want) {
			t.Errorf("stemLen(%q) = %d, want %d", key, got, len(want))
		}
		if back, ok := keyFromStem(want); !ok || back != key {
			t.Errorf("keyFromStem(%q) = %q, %v, want %q", want, back, ok, key)
		}
	}
}

// TestKeyStemInjective enumerates every valid key up to a small length over
// an alphabet that contains each kind of character the encoding treats
// specially, and checks that no two of them share a file name, compared
// case-insensitively as macOS and Windows do.
func TestKeyStemInjective(t *testing.T) {
	alphabet := []byte("aAbB1:_-.@+")
	seen := make(map[string]string)
	var n int
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		if len(prefix) > 0 {
			key := string(prefix)
			if ValidateKey(key) == nil {
				n++
				stem := keyStem(key)
				folded := strings.ToLower(stem)
				if other, dup := seen[folded]; dup {
					t.Fatalf("keys %q and %q both map to file %q", other, key, folded)
				}
				seen[folded] = key
				if back, ok := keyFromStem(stem); !ok || back != key {
					t.Fatalf("keyFromStem(keyStem(%q)) = %q, %v", key, back, ok)
				}
			}
		}
		if len(prefix) == 5 {
			return
		}
		for _, c := range alphabet {
			walk(append(prefix, c))
		}
	}
	walk(nil)
	if n < 10000 {
		t.Fatalf("only %d valid keys enumerated; alphabet or rules changed?", n)
	}
}

func TestKeyFromStemRejectsForeignNames(t *testing.T) {
	for _, stem := range []string{
		"notes", "API_x", "api_", "_x", "api_^", "api_^1", "api_a^", "tele=gram_1", ".api_x",
	} {
		if key, ok := keyFromStem(stem); ok {
			t.Errorf("keyFromStem(%q) = %q, want rejection", stem, key)
		}
	}
}
