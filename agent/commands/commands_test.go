package commands_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent/commands"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		name string
		args []string
		ok   bool
	}{
		{"/model gpt-4o --global", "model", []string{"gpt-4o", "--global"}, true},
		{"  /help  ", "help", []string{}, true},
		{"/status@joshbot_bot", "status", []string{}, true},
		{"/unknown_cmd x", "unknown_cmd", []string{"x"}, true},
		{"/etc/hosts is odd", "", nil, false},
		{"/Model", "", nil, false},
		{"hello /model", "", nil, false},
		{"/", "", nil, false},
	} {
		name, args, ok := commands.Parse(tt.in)
		if ok != tt.ok || name != tt.name || (ok && !slices.Equal(args, tt.args)) {
			t.Errorf("Parse(%q) = %q %q %v, want %q %q %v", tt.in, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func TestTableFeedsEverySurface(t *testing.T) {
	help := commands.HelpText()
	unknown := commands.UnknownReply("nope")
	for _, c := range commands.All() {
		if !strings.Contains(help, c.Usage()) || !strings.Contains(help, c.Summary) {
			t.Errorf("/help lacks %s", c.Usage())
		}
		if !strings.Contains(unknown, "/"+c.Name) {
			t.Errorf("unknown reply lacks /%s", c.Name)
		}
		if got, ok := commands.Lookup(c.Name); !ok || got != c {
			t.Errorf("Lookup(%s) = %+v, %v", c.Name, got, ok)
		}
		if len(c.Summary) > 256 {
			t.Errorf("/%s summary too long for a Telegram menu", c.Name)
		}
	}
	for _, want := range []string{"new", "model", "personality", "agent", "compact", "status", "help"} {
		if _, ok := commands.Lookup(want); !ok {
			t.Errorf("/%s missing from the table", want)
		}
	}
}

func TestComplete(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"/", []string{"/agent", "/compact", "/help", "/model", "/new", "/personality", "/status"}},
		{"/st", []string{"/status"}},
		{"/model x", nil},
		{"mo", nil},
	} {
		if got := commands.Complete(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
