package telegram_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
)

// TestEmulatorReceivesRenderedMarkdown sends model answers from the golden
// corpus (nested lists with code, a table, a nested quote with dunders)
// through the adapter to the Bot API emulator and checks that what arrives
// is exactly the recorded Telegram HTML: the goldmark rendering is what
// the real send path puts on the wire.
func TestEmulatorReceivesRenderedMarkdown(t *testing.T) {
	e := telegramtest.Start(t)
	names := []string{"30-code-heavy-go", "21-comparison-table", "19-python-class-dunder", "25-blockquote-nested"}
	var answers, want []string
	for _, n := range names {
		md, err := os.ReadFile(filepath.Join("testdata", "render", n+".md"))
		if err != nil {
			t.Fatal(err)
		}
		html, err := os.ReadFile(filepath.Join("testdata", "render", n+".html"))
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, strings.TrimSuffix(string(md), "\n"))
		want = append(want, strings.TrimSuffix(string(html), "\n"))
	}
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			for _, a := range answers {
				if err := tg.Send(ctx, inb.Conversation, channels.Outbound{Text: a}); err != nil {
					t.Errorf("Send: %v", err)
				}
			}
		}
	})
	e.UserSends(t, 1, "show me", nil)
	waitFor(t, "the answers", func() bool { return len(e.BotMessages(t, 1)) >= len(answers) })
	time.Sleep(200 * time.Millisecond)
	got := e.BotMessages(t, 1)
	if len(got) != len(want) {
		t.Fatalf("%d messages arrived, want %d", len(got), len(want))
	}
	for i, m := range got {
		if m.Text != want[i] {
			t.Errorf("%s arrived as\n%s\nwant\n%s", names[i], m.Text, want[i])
		}
	}
}
