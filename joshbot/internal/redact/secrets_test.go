package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestSecretByValue: a key shaped like no vendor's is removed by value in
// every form it travels in (issue 18: such a key reached incidents.jsonl,
// joshbot.log and provider_health.json).
func TestSecretByValue(t *testing.T) {
	const key = "Zq8/vT3+plainKey-77=x"
	r := New("/home/josh")
	r.AddSecret(key)
	for _, tt := range []struct{ form, in, want string }{
		{"bare", "provider said: invalid key " + key + ".", "provider said: invalid key [REDACTED]."},
		{"bearer", "Bearer " + key, "Bearer [REDACTED]"},
		{"header", "Authorization: Bearer " + key, "Authorization: Bearer [REDACTED]"},
		{"assignment", "auth=" + key + " next", "auth=[REDACTED] next"},
		{"assignment with scheme", "auth=Bearer " + key + " next", "auth=Bearer [REDACTED] next"},
		{"json", `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`, `{"error":{"message":"Incorrect API key provided: [REDACTED]"}}`},
		{"url userinfo", "https://user:" + key + "@api.example/v1", "https://user:[REDACTED]@api.example/v1"},
		{"url user only", "https://" + key + "@api.example/v1", "https://[REDACTED]@api.example/v1"},
		{"query escaped", "GET /v1?key=" + url.QueryEscape(key) + "&x=1", "GET /v1?key=[REDACTED]&x=1"},
		{"path escaped", "GET /keys/" + url.PathEscape(key) + "/info", "GET /keys/[REDACTED]/info"},
		{"in parentheses", "(the key " + key + ")", "(the key [REDACTED])"},
	} {
		t.Run(tt.form, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	// Basic credentials: base64 of user:key for users of every length mod 3.
	for _, user := range []string{"a", "ab", "abc", "apiuser"} {
		b64 := base64.StdEncoding.EncodeToString([]byte(user + ":" + key))
		got := r.String("creds " + b64)
		if strings.Contains(got, b64) || !strings.Contains(got, Marker) {
			t.Errorf("base64 of %s:key not redacted: %q", user, got)
		}
		// Around the marker only the user's part and a group at each end
		// (at most two bytes of the key each) survive.
		if left := strings.ReplaceAll(strings.TrimPrefix(got, "creds "), Marker, ""); len(left) > len(base64.StdEncoding.EncodeToString([]byte(user+":")))+8 {
			t.Errorf("base64 of %s:key: %q left around the marker", user, left)
		}
	}
	if got := r.String(string(r.JSON([]byte(`{"detail":"` + key + `"}`)))); strings.Contains(got, key) {
		t.Errorf("JSON kept the key: %s", got)
	}
}

// TestAuthSchemeAssignment: auth=Bearer <key> used to become
// auth=[REDACTED] <key>.
func TestAuthSchemeAssignment(t *testing.T) {
	r := New("")
	for _, tt := range []struct{ in, want string }{
		{"auth=Bearer abcdefghijk123 rest", "auth=Bearer [REDACTED] rest"},
		{"token=Basic dXNlcjpwYXNzd29yZA==", "token=Basic [REDACTED]"},
		{"AUTH: bot 123456:ABCDEFGHIJ", "AUTH: bot [REDACTED]"},
		{"auth=Bearer", "auth=[REDACTED]"},
	} {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactionKeepsTheSentence: placeholders are not secrets, and a
// marker never swallows a closing bracket.
func TestRedactionKeepsTheSentence(t *testing.T) {
	r := New("")
	r.AddSecret("<key>")
	r.AddSecret("${OPENAI_API_KEY}")
	r.AddSecret("short")
	for _, tt := range []struct{ in, want string }{
		{"set api_key=<key> in config.json", "set api_key=<key> in config.json"},
		{"auth=Bearer <key>", "auth=Bearer <key>"},
		{"Authorization: Bearer <token>", "Authorization: Bearer <token>"},
		{"export OPENAI_API_KEY=$OPENAI_API_KEY", "export OPENAI_API_KEY=$OPENAI_API_KEY"},
		{"(api_key=abc123def)", "(api_key=[REDACTED])"},
		{"[token=abc123def]", "[token=[REDACTED]]"},
		{"{secret=abc123def}.", "{secret=[REDACTED]}."},
		{"(Authorization: Bearer abc123def)", "(Authorization: Bearer [REDACTED])"},
		{"a short word stays short", "a short word stays short"},
	} {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestAddEnvironAndPackageLevel(t *testing.T) {
	r := New("")
	r.AddEnviron([]string{"MY_SERVICE_TOKEN=tok-0123456789", "HOME=/home/someone-long", "X_API_KEY=", "WEBHOOK_SECRET=whsec-abcdefgh",
		"PWD=/root/.joshbot/workspace", "OLDPWD=somewhere-else", "GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json"})
	got := r.String("tok-0123456789 /home/someone-long whsec-abcdefgh /root/.joshbot/workspace somewhere-else /etc/gcp/key.json")
	if got != "[REDACTED] /home/someone-long [REDACTED] /root/.joshbot/workspace somewhere-else /etc/gcp/key.json" {
		t.Fatalf("got %q", got)
	}
}

// TestAddSecretConcurrent runs registration and redaction together under
// -race.
func TestAddSecretConcurrent(t *testing.T) {
	r := New("")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r.AddSecret(strings.Repeat(string(rune('a'+i)), 12))
		}()
		go func() {
			defer wg.Done()
			_ = r.String("aaaaaaaaaaaa bbbbbbbbbbbb")
		}()
	}
	wg.Wait()
	if got := r.String("aaaaaaaaaaaa dddddddddddd"); got != "[REDACTED] [REDACTED]" {
		t.Fatalf("got %q", got)
	}
}
