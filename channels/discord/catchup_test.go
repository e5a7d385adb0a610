package discord_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/discord"
)

// snowflake is a Discord id for a message sent at at.
func snowflake(at time.Time, n int) string {
	return fmt.Sprint((at.UnixMilli()-1420070400000)<<22 | int64(n))
}

// logBuffer is a slog destination tests can read while the adapter writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// session runs d until the returned stop is called.
func session(t *testing.T, f *fakeDiscord, d *discord.Discord, sink channels.Sink) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx, sink) }()
	f.waitConnected(t)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Start = %v, want context.Canceled", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func texts(in []channels.Inbound) []string {
	var out []string
	for _, m := range in {
		out = append(out, m.Text)
	}
	return out
}

func TestCatchUpAfterRestart(t *testing.T) {
	f := newFakeDiscord(t)
	cursorFile := filepath.Join(t.TempDir(), "state", "discord-cursors.json")
	var logs logBuffer
	opts := &discord.Options{CursorFile: cursorFile, CatchUpAge: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	now := time.Now()
	a := user(alice, "alice")
	mention := map[string]any{"mentions": []any{map[string]any{"id": botID, "username": "joshbot", "bot": true}}}

	// First run: alice writes in a DM and mentions the bot in a guild
	// channel, so both conversations are tracked. A stranger's DM is not.
	s1 := &recordingSink{allow: map[string]bool{alice: true}}
	stop := session(t, f, newAdapter(t, f, opts), s1)
	f.dispatch("MESSAGE_CREATE", message(snowflake(now.Add(-3*time.Hour), 1), "800000000000000001", "", a, "first", nil))
	f.dispatch("MESSAGE_CREATE", message(snowflake(now.Add(-3*time.Hour), 2), "700000000000000001", "guild-1", a, "<@"+botID+"> in the guild", mention))
	f.dispatch("MESSAGE_CREATE", message(snowflake(now.Add(-3*time.Hour), 3), "800000000000000002", "", user("666", "mallory"), "hello?", nil))
	waitFor(t, "the first run's messages", func() bool { return len(s1.delivered()) == 3 })
	stop()

	// While the gateway is down.
	f.offline(message(snowflake(now.Add(-2*time.Hour), 4), "800000000000000001", "", a, "too old to answer", nil))
	f.offline(message(snowflake(now.Add(-2*time.Minute), 5), "800000000000000001", "", a, "missed one", nil))
	f.offline(message(snowflake(now.Add(-time.Minute), 6), "700000000000000001", "guild-1", a, "<@"+botID+"> missed in the guild", mention))
	f.offline(message(snowflake(now.Add(-time.Minute), 7), "800000000000000001", "", a, "missed two", nil))
	f.offline(message(snowflake(now.Add(-time.Minute), 8), "800000000000000002", "", user("666", "mallory"), "anyone?", nil))

	// The restart: a new adapter, a new gateway session (not a resume).
	s2 := &recordingSink{allow: map[string]bool{alice: true}}
	stop = session(t, f, newAdapter(t, f, opts), s2)
	f.dispatch("MESSAGE_CREATE", message(snowflake(now, 9), "800000000000000001", "", a, "live after restart", nil))
	waitFor(t, "the missed messages and the live one", func() bool { return len(s2.delivered()) == 4 })
	time.Sleep(100 * time.Millisecond) // nothing more arrives
	got := s2.delivered()
	if len(got) != 4 {
		t.Fatalf("handed over %q, want each message once", texts(got))
	}
	byConv := map[string][]string{}
	for _, m := range got {
		byConv[m.Conversation] = append(byConv[m.Conversation], m.Text)
	}
	if want := "missed one|missed two|live after restart"; strings.Join(byConv["800000000000000001"], "|") != want {
		t.Errorf("DM after the restart: %q, want %s", byConv["800000000000000001"], want)
	}
	if got[len(got)-1].Text != "live after restart" {
		t.Errorf("a live event overtook the catch-up: %q", texts(got))
	}
	for _, m := range got {
		switch m.Conversation {
		case "800000000000000001":
			if !m.IsDirect || m.Principal != alice {
				t.Errorf("caught-up DM %+v", m)
			}
		case "700000000000000001":
			// REST messages carry no guild id; the cursor restores it.
			if m.IsDirect || !m.Mentioned || m.Text != "missed in the guild" {
				t.Errorf("caught-up guild message %+v", m)
			}
		default:
			t.Errorf("delivered from an untracked conversation: %+v", m)
		}
	}
	if l := logs.String(); !strings.Contains(l, "older than 1h0m0s left unanswered") {
		t.Errorf("the skipped old message was not logged:\n%s", l)
	}
	f.mu.Lock()
	for _, r := range f.histReads {
		if strings.HasPrefix(r, "800000000000000002") {
			t.Errorf("fetched the history of a conversation the bot never answered in: %s", r)
		}
	}
	f.mu.Unlock()
	stop()

	// A third start fetches from where the second left off.
	f.mu.Lock()
	f.histReads = nil
	f.mu.Unlock()
	s3 := &recordingSink{allow: map[string]bool{alice: true}}
	stop = session(t, f, newAdapter(t, f, opts), s3)
	waitFor(t, "the third start's history reads", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.histReads) == 2
	})
	stop()
	f.mu.Lock()
	reads := strings.Join(f.histReads, ",")
	f.mu.Unlock()
	if !strings.Contains(reads, "800000000000000001 after="+snowflake(now, 9)) || !strings.Contains(reads, "700000000000000001 after="+snowflake(now.Add(-time.Minute), 6)) {
		t.Errorf("third start read %s", reads)
	}
	if n := len(s3.delivered()); n != 0 {
		t.Errorf("the third start handed over %d messages again", n)
	}
}

func TestCatchUpForgetsAClosedConversation(t *testing.T) {
	f := newFakeDiscord(t)
	cursorFile := filepath.Join(t.TempDir(), "discord-cursors.json")
	opts := &discord.Options{CursorFile: cursorFile}
	s := &recordingSink{allow: map[string]bool{alice: true}}
	stop := session(t, f, newAdapter(t, f, opts), s)
	f.dispatch("MESSAGE_CREATE", message(snowflake(time.Now(), 1), "800000000000000003", "", user(alice, "alice"), "hi", nil))
	waitFor(t, "the message", func() bool { return len(s.delivered()) == 1 })
	stop()
	if data, err := os.ReadFile(cursorFile); err != nil || !strings.Contains(string(data), "800000000000000003") {
		t.Fatalf("cursor file %q %v", data, err)
	}

	f.mu.Lock()
	f.closed["800000000000000003"] = true
	f.mu.Unlock()
	stop = session(t, f, newAdapter(t, f, opts), s)
	waitFor(t, "the conversation forgotten", func() bool {
		data, _ := os.ReadFile(cursorFile)
		return !strings.Contains(string(data), "800000000000000003")
	})
	stop()
}

func TestCatchUpSurvivesAnUnreadableCursorFile(t *testing.T) {
	f := newFakeDiscord(t)
	cursorFile := filepath.Join(t.TempDir(), "discord-cursors.json")
	if err := os.WriteFile(cursorFile, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	s := &recordingSink{allow: map[string]bool{alice: true}}
	stop := session(t, f, newAdapter(t, f, &discord.Options{CursorFile: cursorFile, Logger: slog.New(slog.NewTextHandler(&logs, nil))}), s)
	f.dispatch("MESSAGE_CREATE", message(snowflake(time.Now(), 1), "800000000000000001", "", user(alice, "alice"), "still works", nil))
	waitFor(t, "the live message", func() bool { return len(s.delivered()) == 1 })
	stop()
	if !strings.Contains(logs.String(), "catch-up cursors unreadable") {
		t.Errorf("no warning about the cursor file:\n%s", logs.String())
	}
	data, err := os.ReadFile(cursorFile)
	if err != nil || !strings.Contains(string(data), "800000000000000001") {
		t.Errorf("cursor file not rewritten: %q %v", data, err)
	}
}
