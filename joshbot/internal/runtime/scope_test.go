package runtime

import (
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
)

func TestMemoryScope(t *testing.T) {
	for _, tt := range []struct {
		name  string
		scope string
		allow []string
		want  map[string]string
	}{
		{"person, one person", "", []string{"1"}, map[string]string{"cli:default": memory.SharedScope, "telegram:1": memory.SharedScope, "slack:U9": "slack:U9",
			"api:chat:0123456789abcdef": "api:default", "api:alice": "api:alice"}},
		{"person, several people", "person", []string{"1", "2"}, map[string]string{"cli:default": OwnerScope, "telegram:1": "telegram:1", "telegram:2": "telegram:2"}},
		{"shared", "shared", []string{"1", "2"}, map[string]string{"cli:default": memory.SharedScope, "telegram:2": memory.SharedScope}},
		{"session", "session", []string{"1"}, map[string]string{"cli:default": "cli:default", "telegram:1": "telegram:1", "api:chat:0123456789abcdef": "api:chat:0123456789abcdef"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Agents.Defaults.LearnScope = tt.scope
			cfg.Channels.Telegram.AllowFrom = tt.allow
			lt, err := memory.OpenLongTerm(t.TempDir(), &memory.LongTermOptions{Scope: MemoryScope(cfg)})
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range tt.want {
				if got := lt.ScopeOf(key); got != want {
					t.Errorf("ScopeOf(%q) = %q, want %q", key, got, want)
				}
			}
		})
	}
}
