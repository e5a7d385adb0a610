package runtime

import (
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

func TestOwnerIdentities(t *testing.T) {
	no := false
	for _, tt := range []struct {
		name       string
		owner      config.Owner
		tg, dc     []string
		yes, notMe []string
		others     bool
	}{
		{name: "inferred single person", tg: []string{"12345"}, dc: []string{"999"},
			yes: []string{"cli:default", "telegram:12345", "discord:999"}, notMe: []string{"telegram:2", "api:alice"}},
		{name: "inferred, @handle", tg: []string{"@Josh"}, yes: []string{"telegram:@josh"}},
		{name: "several people, no block: only the CLI", tg: []string{"1", "2"},
			yes: []string{"cli:x"}, notMe: []string{"telegram:1", "telegram:2"}, others: true},
		{name: "a wildcard is several people", tg: []string{"*"}, yes: []string{"cli:x"}, notMe: []string{"telegram:1"}, others: true},
		{name: "declared", owner: config.Owner{Telegram: []string{"1"}}, tg: []string{"1", "2"},
			yes: []string{"cli:default", "telegram:1"}, notMe: []string{"telegram:2"}, others: true},
		{name: "declared, not the CLI", owner: config.Owner{CLI: &no, Telegram: []string{"1"}}, tg: []string{"1"},
			yes: []string{"telegram:1"}, notMe: []string{"cli:default"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := config.Defaults()
			c.Owner = tt.owner
			c.Channels.Telegram.AllowFrom = tt.tg
			c.Channels.Discord.AllowFrom = tt.dc
			id := OwnerIdentities(c)
			for _, k := range tt.yes {
				if !id.Is(k) {
					t.Errorf("%s is not the owner", k)
				}
			}
			for _, k := range tt.notMe {
				if id.Is(k) {
					t.Errorf("%s is taken for the owner", k)
				}
			}
			if id.Others != tt.others {
				t.Errorf("Others = %v, want %v", id.Others, tt.others)
			}
		})
	}
}
