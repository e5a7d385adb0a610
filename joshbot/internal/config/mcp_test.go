package config

import (
	"strings"
	"testing"
	"time"
)

func TestMCPServersParseValidateAndOverride(t *testing.T) {
	cfg, err := Parse("c.json", []byte(`{"schema_version":1,"mcp":{"servers":{
		"fs":  {"command":"mcp-server-filesystem","args":["/tmp"],"env":{"A":"b"},"call_timeout":"90s"},
		"web": {"url":"https://example.com/mcp","allow_private":true,"enabled":false}
	}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.validateMCP(); err != nil {
		t.Fatal(err)
	}
	fs, web := cfg.MCP.Servers["fs"], cfg.MCP.Servers["web"]
	if !fs.IsEnabled() || web.IsEnabled() {
		t.Fatalf("enabled: fs %v web %v", fs.IsEnabled(), web.IsEnabled())
	}
	s := fs.Server("fs")
	if s.Name != "fs" || s.Command != "mcp-server-filesystem" || s.Args[0] != "/tmp" || s.Env["A"] != "b" || s.CallTimeout != 90*time.Second {
		t.Fatalf("%+v", s)
	}
	if w := web.Server("web"); w.URL != "https://example.com/mcp" || !w.AllowPrivate {
		t.Fatalf("%+v", w)
	}
	if got := cfg.MCP.Names(); strings.Join(got, ",") != "fs,web" {
		t.Fatal(got)
	}
	if err := ApplyEnv(cfg, []string{"JOSHBOT_MCP__SERVERS__FS__CALL_TIMEOUT=5m", "JOSHBOT_MCP__SERVERS__NEW__COMMAND=srv"}); err != nil {
		t.Fatal(err)
	}
	if cfg.MCP.Servers["fs"].CallTimeout.Std() != 5*time.Minute || cfg.MCP.Servers["new"].Command != "srv" {
		t.Fatalf("overrides not applied: %+v", cfg.MCP.Servers)
	}
}

func TestMCPValidationNamesTheKey(t *testing.T) {
	for _, tt := range []struct {
		json, want string
	}{
		{`{"x.y":{"command":"a"}}`, "mcp.servers.x.y"},
		{`{"a":{}}`, "mcp.servers.a: mcp server \"a\": set command"},
		{`{"a":{"command":"c","url":"https://e.com"}}`, "not both"},
		{`{"a":{"url":"file:///etc/passwd"}}`, "http:// or https://"},
		{`{"a":{"command":"c","call_timeout":"5ms"}}`, "mcp.servers.a.call_timeout"},
	} {
		cfg, err := Parse("c.json", []byte(`{"schema_version":1,"mcp":{"servers":`+tt.json+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.json, err, tt.want)
		}
	}
	cfg, _ := Parse("c.json", []byte(`{"schema_version":1,"mcp":{"servers":{"a":{"command":"c","bogus":1}}}}`))
	if cfg != nil {
		t.Error("an unknown key under a server was accepted")
	}
}
