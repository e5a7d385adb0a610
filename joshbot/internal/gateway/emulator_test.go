package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// The tests in this file run the gateway with the real Telegram adapter,
// enabled by the config as `joshbot gateway` enables it, against the npm
// Bot API emulator (telegramtest.Start: skipped without node, failed when
// `make deps-telegram` has not installed it). The scripted model is the
// only fake.

// emulatorTokenEnv is the variable the configs below name for the bot token.
const emulatorTokenEnv = "JOSHBOT_TEST_TG_TOKEN"

// emulatorConfig writes raw (a config document in which %API% stands for
// the emulator's Bot API root) next to a fresh home and returns its path.
func emulatorConfig(t *testing.T, emu *telegramtest.Emulator, raw string) string {
	t.Helper()
	t.Setenv(emulatorTokenEnv, telegramtest.Token)
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(raw, "%API%", emu.APIURL)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// emulatorTelegram is the channels.telegram section the configs use: user
// 1 is allowed.
const emulatorTelegram = `"channels":{"telegram":{"enabled":true,"token_env":"` + emulatorTokenEnv + `","api_url":"%API%","allow_from":["1"]}}`

// awaitBot polls the emulator's history of chat 1 until cond holds for
// what the bot sent there, and returns it.
func awaitBot(t *testing.T, emu *telegramtest.Emulator, what string, cond func([]telegramtest.Message) bool) []telegramtest.Message {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := emu.BotMessages(t, 1)
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; the bot sent %+v", what, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGatewayTelegramStopKeepsThePartialAnswer (issue 22 item 11): a user
// presses the live reply's ⏹ Stop button, as the emulator recorded it,
// while the answer streams. The turn ends at once; the one live message
// keeps the text shown so far with the stopped marker (it is neither
// deleted nor replaced by an error, and no other message is sent); the
// session stores that text as an interrupted assistant message, and the
// next turn tells the model the answer was stopped.
func TestGatewayTelegramStopKeepsThePartialAnswer(t *testing.T) {
	emu := telegramtest.Start(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	// Four chunks of 16 characters; the model stalls after the first two,
	// still "writing" when Stop is pressed.
	const shown = "Once upon a time there was a bot"
	srv.Enqueue(providertest.Reply{Content: shown + " that never finished its story..", Chunks: 4, HangAfterChunks: 3})
	srv.Enqueue(providertest.Text("Continuing."))
	cfgPath := emulatorConfig(t, emu, `{"schema_version":1,
	  "agents":{"defaults":{"provider":"custom","model":"scripted-model","learning":"off","streaming":true}},
	  "providers":{"custom":{"api_base":"`+srv.URL()+`"}},`+emulatorTelegram+`}`)
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs)
	defer func() {
		if t.Failed() {
			t.Logf("gateway log:\n%s", stop())
		}
	}()

	emu.UserSends(t, 1, "tell me a story", nil)
	live := awaitBot(t, emu, "the streamed answer so far", func(m []telegramtest.Message) bool {
		return len(m) == 1 && m[0].Text == shown
	})[0]
	data, ok := live.Button("⏹ Stop")
	if !ok {
		t.Fatalf("the live reply has no ⏹ Stop button: %+v", live)
	}
	pressed := time.Now()
	emu.UserPresses(t, 1, live, data)

	want := shown + "\n\n⏹ Stopped."
	awaitBot(t, emu, "the stopped reply", func(m []telegramtest.Message) bool {
		return len(m) != 1 || m[0].Text != shown
	})
	if took := time.Since(pressed); took > 10*time.Second {
		t.Errorf("the reply changed %v after the press", took)
	}
	time.Sleep(500 * time.Millisecond) // nothing more may follow
	got := emu.BotMessages(t, 1)
	if len(got) != 1 || got[0].ID != live.ID || got[0].Text != want {
		t.Fatalf("after Stop the chat holds %+v, want only message %d reading %q", got, live.ID, want)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests after Stop, want the one that was stopped", n)
	}
	stop()

	store, err := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.Load("telegram:1")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range sess.Messages {
		kinds = append(kinds, m.Role+"/"+string(m.Kind)+": "+m.Content)
	}
	if n := len(sess.Messages); n != 2 || sess.Messages[0].Role != providers.RoleUser ||
		sess.Messages[1].Role != providers.RoleAssistant || sess.Messages[1].Kind != memory.KindInterrupted || sess.Messages[1].Content != shown {
		t.Fatalf("session holds %q, want the question and %q as an interrupted assistant message", kinds, shown)
	}

	// The next turn, in a gateway started again on the same home, tells
	// the model that the answer was stopped.
	runGateway(t, cfgPath, &bytes.Buffer{})
	emu.UserSends(t, 1, "go on", nil)
	awaitBot(t, emu, "the next answer", func(m []telegramtest.Message) bool { return len(m) == 2 && m[1].Text == "Continuing." })
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	var told bool
	for _, m := range msgs {
		if m.Role == providers.RoleAssistant && strings.HasPrefix(m.Content, shown) && strings.Contains(m.Content, "stopped by the user") {
			told = true
		}
	}
	if !told {
		t.Fatalf("the next request does not carry the stopped answer marked as stopped: %+v", msgs)
	}
}

// TestGatewayTelegramShowsTheWaitForASilentModel (issue 22 item 13): the
// model's server accepts the request, sends its headers and then nothing.
// The chat shows that the turn is waiting, and when
// providers.<name>.first_byte_timeout expires the fallback model answers in
// the same message.
//
// The emulator answers sendChatAction (the typing indicator) with its
// unknown-method error and keeps no record of it, so the typing indicator
// is asserted through telegramtest's recording proxy in front of the
// emulator (Emulator.Called); the waiting status line is asserted through
// the emulator's own history, polled while the model is silent.
func TestGatewayTelegramShowsTheWaitForASilentModel(t *testing.T) {
	emu := telegramtest.Start(t)
	clearProviderEnv(t)
	silent, backup := providertest.NewServer(t), providertest.NewServer(t)
	silent.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Reply{Content: "never", HangAfterHeaders: true}
	})
	backup.Enqueue(providertest.Text("Here at last."))
	cfgPath := emulatorConfig(t, emu, `{"schema_version":1,
	  "agents":{"defaults":{"learning":"off","streaming":true}},
	  "providers":{"primary":{"api_base":"`+silent.URL()+`","max_retries":0,"first_byte_timeout":"7s"},"backup":{"api_base":"`+backup.URL()+`"}},
	  "models_config":{"agent":{"model":"primary/big","fallbacks":[{"model":"backup/small"}]}},`+emulatorTelegram+`}`)
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs)
	defer func() {
		if t.Failed() {
			t.Logf("gateway log:\n%s", stop())
		}
	}()

	asked := time.Now()
	emu.UserSends(t, 1, "hello?", nil)
	// Every text the live message showed, polled from the history.
	var seen []string
	stoppable := false // a waiting status carried the ⏹ Stop button
	got := awaitBot(t, emu, "the fallback's answer", func(m []telegramtest.Message) bool {
		if len(m) > 0 && (len(seen) == 0 || seen[len(seen)-1] != m[0].Text) {
			seen = append(seen, m[0].Text)
		}
		if len(m) > 0 && strings.HasPrefix(m[0].Text, "⏳") {
			_, ok := m[0].Button("⏹ Stop")
			stoppable = stoppable || ok
		}
		return len(m) > 0 && strings.Contains(m[0].Text, "Here at last.")
	})
	took := time.Since(asked)
	var waiting []string
	for _, s := range seen {
		if strings.HasPrefix(s, "⏳ waiting for the model (") {
			waiting = append(waiting, s)
		}
	}
	if len(waiting) < 2 || waiting[0] != "⏳ waiting for the model (2s)" {
		t.Fatalf("the live message showed %q, want a waiting status from 2s on, counting up", seen)
	}
	if !stoppable {
		t.Errorf("the waiting status carries no ⏹ Stop button")
	}
	if n := emu.Called("sendChatAction"); n == 0 {
		t.Errorf("no typing indicator (sendChatAction) while the model was silent")
	}
	if len(got) != 1 || !strings.Contains(got[0].Text, "answered by backup (small)") {
		t.Fatalf("the chat holds %+v, want the waiting message turned into the fallback's answer with its notice", got)
	}
	if took < 6*time.Second || took > 25*time.Second {
		t.Errorf("the answer came after %v, want the 7s first_byte_timeout and then the fallback", took)
	}
	if n := len(backup.Requests()); n != 1 {
		t.Errorf("the fallback was asked %d times, want once", n)
	}
}
