package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/mcpclient"
)

func TestSecretKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"providers.openai.api_key", true},
		{"channels.telegram.token", true},
		{"webhooks.routes[0].secret", true},
		{"mcp.servers.gh.env.GITHUB_TOKEN", true},
		{"providers.openai.api_key_env", false},
		{"channels.telegram.token_env", false},
		{"agents.defaults.model", false},
	} {
		if got := secretKey(tt.key); got != tt.want {
			t.Errorf("secretKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	got := flatten([]byte(`{"a":{"b":1,"c":[1,2],"d":{}},"e":"x"}`))
	want := map[string]string{"a.b": "1", "a.c": "[1,2]", "a.d": "{}", "e": `"x"`}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("flatten (-want +got):\n%s", d)
	}
	if got := flatten([]byte("not json")); len(got) != 0 {
		t.Fatalf("flatten of a broken document = %v", got)
	}
}

// TestWriteMCPTextDefangsServerText: text a server supplies cannot drive
// the operator's terminal.
func TestWriteMCPTextDefangsServerText(t *testing.T) {
	doc := &MCPDoc{TrustStore: "~/.joshbot/mcp.trust", Servers: []MCPServer{{
		Name: "evil", Command: "evil-server",
		Status: mcpclient.Status{State: "pending", Transport: "stdio", Tools: []mcpclient.ToolStatus{
			{Name: "t", Description: "line one\n\x1b[2Jcleared", InputSchema: []byte(`{}`)},
		}},
	}}}
	var b strings.Builder
	WriteMCPText(&b, doc)
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), "?[2Jcleared") {
		t.Fatalf("escape not defanged:\n%q", b.String())
	}
}

func TestTelegramStatus(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_TG_TOKEN", "123:abc")
	cfg := config.Defaults()
	cfg.Channels.Telegram.Enabled = true
	cfg.Channels.Telegram.TokenEnv = "JOSHBOT_TEST_TG_TOKEN"
	cfg.Channels.Telegram.AllowFrom = []string{"42", "*"}
	got := TelegramStatus(cfg)
	want := output.ChannelStatus{Name: "telegram", Enabled: true, Token: "$JOSHBOT_TEST_TG_TOKEN (token_env)", TokenSet: true, AllowFrom: -1}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("TelegramStatus (-want +got):\n%s", d)
	}
	if strings.Contains(got.Token, "123:abc") {
		t.Fatal("the token itself is in the report")
	}
}

func TestHumanSizeAndClipLine(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1536, "1.5 KiB"}, {3 << 20, "3.0 MiB"}} {
		if got := HumanSize(tt.n); got != tt.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	// Whitespace folds to one line, and a cut never splits a rune.
	if got := ClipLine("a\n  b\tc", 10); got != "a b c" {
		t.Errorf("ClipLine = %q", got)
	}
	if got := ClipLine("ab€cd", 3); got != "ab…" {
		t.Errorf("ClipLine cut inside a rune: %q", got)
	}
}
