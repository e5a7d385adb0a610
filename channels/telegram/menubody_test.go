package telegram_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

// The hand-written check accepts exactly what the regular expression it
// replaced accepted.
func TestValidCommandMatchesTheRegexpItReplaced(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9_]{1,32}$`)
	names := []string{"", "a", "new", "model_2", "Model", "new\n", "\nnew", "new-x", "név", "ａ", "a b",
		strings.Repeat("a", 32), strings.Repeat("a", 33), strings.Repeat("é", 16), "_", "9", "x\x00"}
	for c := 0; c < 256; c++ {
		names = append(names, string(rune(c)), "a"+string(rune(c)))
	}
	for _, n := range names {
		if got, want := telegram.ValidCommand(n), re.MatchString(n); got != want {
			t.Errorf("ValidCommand(%q) = %v, the regexp says %v", n, got, want)
		}
	}
}

// setMyCommands sends, byte for byte, what telebot's SetCommands sent for
// the same menu: telebot's Raw re-encodes the hand-built body the way it
// encoded its parameter struct.
func TestSetMyCommandsBodyIsWhatTelebotSent(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, menu := range [][]channels.Command{
		nil,
		{{Name: "new", Description: "Start a new conversation"}},
		{{Name: "a", Description: `<b>&"quoted"</b> \ back`}, {Name: "b", Description: "line\nbreak\ttab\x01 \u2028\u2029 é 😀"}},
		{{Name: "bad", Description: "invalid \xff utf-8"}, {Name: "long", Description: long}},
	} {
		var cmds []tele.Command
		for _, c := range menu {
			d := c.Description
			if r := []rune(d); len(r) > 256 {
				d = string(r[:255]) + "…"
			}
			cmds = append(cmds, tele.Command{Text: c.Name, Description: d})
		}
		var want, got bytes.Buffer
		if err := json.NewEncoder(&want).Encode(tele.CommandParams{Commands: cmds}); err != nil {
			t.Fatal(err)
		}
		if err := json.NewEncoder(&got).Encode(json.RawMessage(telegram.SetMyCommandsBody(menu))); err != nil {
			t.Fatalf("body for %v is not valid JSON: %v", menu, err)
		}
		if got.String() != want.String() {
			t.Errorf("setMyCommands body\n got %s\nwant %s", got.Bytes(), want.Bytes())
		}
	}
}
