package redact

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// secrets are credential shapes that must never survive redaction.
var secrets = []string{
	"sk-proj-AbCdEf0123456789AbCdEf0123456789",
	"sk-ant-api03-AbCdEf0123456789AbCdEf0123456789",
	"sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef",
	"gsk_AbCdEf0123456789AbCdEf0123456789",
	"ghp_AbCdEf0123456789AbCdEf0123456789abcd",
	"github_pat_11AbCdEf0123456789_AbCdEf0123456789",
	"xoxb-1234567890-0987654321-AbCdEfGhIj",
	"AKIAIOSFODNN7EXAMPLE",
	"110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
}

func TestString(t *testing.T) {
	r := New("/home/josh")
	for _, tt := range []struct{ in, want string }{
		{"key sk-proj-AbCdEf0123456789AbCdEf0123456789 here", "key [REDACTED] here"},
		{"anthropic sk-ant-api03-AbCdEf0123456789AbCdEf0123456789", "anthropic [REDACTED]"},
		{"or sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef.", "or [REDACTED]."},
		{"groq gsk_AbCdEf0123456789AbCdEf0123456789", "groq [REDACTED]"},
		{"gh ghp_AbCdEf0123456789AbCdEf0123456789abcd", "gh [REDACTED]"},
		{"pat github_pat_11AbCdEf0123456789_AbCdEf0123456789", "pat [REDACTED]"},
		{"slack xoxb-1234567890-0987654321-AbCdEfGhIj", "slack [REDACTED]"},
		{"aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"},
		{"GET https://api.telegram.org/bot110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe", "GET https://api.telegram.org/bot[REDACTED]/getMe"},
		{"Authorization: Bearer abc.def.ghi", "Authorization: Bearer [REDACTED]"},
		{"authorization: Basic dXNlcjpwYXNz", "authorization: Basic [REDACTED]"},
		{"Authorization: rawtoken123", "Authorization: [REDACTED]"},
		{`"Authorization": "Bot abc123"`, `"Authorization": "Bot [REDACTED]"`},
		{"Proxy-Authorization: Negotiate xyz", "Proxy-Authorization: Negotiate [REDACTED]"},
		{"OPENAI_API_KEY=hunter2xyz", "OPENAI_API_KEY=[REDACTED]"},
		{"export DB_PASSWORD='correct horse'", "export DB_PASSWORD='[REDACTED]'"},
		{`api_key: "abc 123"`, `api_key: "[REDACTED]"`},
		{`"client_secret":"s3cr3t"`, `"client_secret":"[REDACTED]"`},
		{"x-api-key: abcdef", "x-api-key: [REDACTED]"},
		{"password=pw1 and token=t0k", "password=[REDACTED] and token=[REDACTED]"},
		{"postgres://app:s3cr3tpw@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"config at /home/josh/.joshbot/config.json", "config at ~/.joshbot/config.json"},
		{"home is /home/josh.", "home is ~."},
		{"other /home/joshua/x stays", "other /home/joshua/x stays"},
		// Things that are not credentials stay.
		{"max_tokens=4096 tokens: 12", "max_tokens=4096 tokens: 12"},
		{"api_key_env=OPENAI_API_KEY", "api_key_env=OPENAI_API_KEY"},
		{"plain text with sk-short", "plain text with sk-short"},
		{"already api_key=[REDACTED]", "already api_key=[REDACTED]"},
	} {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONIsAlwaysValid(t *testing.T) {
	r := New("/home/josh")
	docs := []string{
		`{"api_key":"sk-proj-AbCdEf0123456789AbCdEf0123456789","n":1.50,"list":["Authorization: Bearer x y","/home/josh/a"]}`,
		`{"headers":{"Authorization":"Bearer abc"},"password":"p\"w","token":"t","max_tokens":4096}`,
		`{"note":"token=\"abc\" \\ end","nested":{"x":[{"secret":"s"}]}}`,
		`"api_key=\"quoted\""`,
		`not json at all api_key="x" sk-proj-AbCdEf0123456789AbCdEf0123456789`,
		`{"truncated": "api_key=`,
		`[1, 2] trailing`,
		``,
	}
	for _, d := range docs {
		out := r.JSON([]byte(d))
		if !json.Valid(out) {
			t.Errorf("JSON(%q) produced invalid JSON: %s", d, out)
		}
		for _, s := range append(secrets, "Bearer abc", `p\"w`, `"t"`, `"s"`) {
			if strings.Contains(string(out), s) {
				t.Errorf("JSON(%q) kept %q: %s", d, s, out)
			}
		}
	}
	var v map[string]any
	json.Unmarshal(r.JSON([]byte(docs[1])), &v)
	if v["max_tokens"] != float64(4096) || v["headers"].(map[string]any)["Authorization"] != "Bearer [REDACTED]" {
		t.Errorf("structure not kept: %v", v)
	}
}

func TestWriterCatchesSplitSecretsAndLogLines(t *testing.T) {
	var out bytes.Buffer
	w := New("/home/josh").NewWriter(&out)
	key := secrets[0]
	w.Write([]byte("first half " + key[:10]))
	w.Write([]byte(key[10:] + " second half\nno newline yet /home/josh/x"))
	if strings.Contains(out.String(), "no newline") {
		t.Fatal("partial line written before its end")
	}
	w.Flush()
	if got := out.String(); got != "first half [REDACTED] second half\nno newline yet ~/x" {
		t.Fatalf("got %q", got)
	}

	// Every secret logged through slog, in every attribute form, is gone.
	out.Reset()
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, s := range secrets {
		log.Info("tool result", "output", "cat .env: KEY="+s, "raw", s)
		log.Debug("request", "header", "Authorization: Bearer "+s)
		slog.New(slog.NewJSONHandler(w, nil)).Warn("json", "k", s)
	}
	log.Info("env", "OPENAI_API_KEY", "plainvalue1234")
	for _, s := range append(secrets, "plainvalue1234") {
		if strings.Contains(out.String(), s) {
			t.Fatalf("secret %q reached the log:\n%s", s, out.String())
		}
	}
	if strings.Count(out.String(), "\n") != 3*len(secrets)+1 {
		t.Fatalf("log lines lost:\n%s", out.String())
	}
}

func TestLongLineIsFlushedInPieces(t *testing.T) {
	var out bytes.Buffer
	w := New("").NewWriter(&out)
	w.Write(bytes.Repeat([]byte("a"), maxPending+10))
	if out.Len() == 0 {
		t.Fatal("an endless line was held forever")
	}
}

// TestPlaceholdersInHelpTextStay proves help text that shows the shape of a
// credential is not garbled: placeholders stay word for word, and a real
// value's redaction keeps the sentence's closing bracket.
func TestPlaceholdersInHelpTextStay(t *testing.T) {
	for _, s := range []string{
		"(for example OPENROUTER_API_KEY=<key>), or start Ollama",
		"(for example OPENROUTER_API_KEY=sk-or-...), or start Ollama",
		"set api_key: sk-… in the file",
		"export OPENAI_API_KEY=<your key> first",
	} {
		if got := String(s); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
	}
	got := String("(for example OPENROUTER_API_KEY=sk-or-v1-abcdefghijklmnop1234), or start Ollama")
	if want := "(for example OPENROUTER_API_KEY=" + Marker + "), or start Ollama"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
