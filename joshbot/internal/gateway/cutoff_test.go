package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayEditsAHalfStreamedReplyAfterACrash: a gateway that dies while
// it streams an answer leaves a half-written message in the chat; the
// next start edits that message to say it was cut off, once. A reply that
// finished normally is never edited.
func TestGatewayEditsAHalfStreamedReplyAfterACrash(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	asked := make(chan struct{}, 1)
	srv.Enqueue(providertest.Reply{
		Content:   "Part one of the answer.",
		ToolCalls: providertest.ToolCalls(providertest.Call("list_dir", `{"path":"."}`)).ToolCalls,
	})
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return providertest.Text("too late")
	})
	cfgPath := gatewayConfig(t, srv, "42")
	home := filepath.Dir(cfgPath)
	f1 := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, f1)
	f1.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "long question", MessageID: "7", IsDirect: true})
	select {
	case <-asked:
	case <-time.After(channeltest.AwaitTimeout):
		t.Fatal("the model was never asked a second time")
	}
	rec := f1.Record()
	if len(rec.Streams) != 1 || len(rec.Streams[0].Updates) == 0 {
		t.Fatalf("no live reply was being written: %+v", rec.Streams)
	}
	live := rec.Streams[0].MessageID
	// What a SIGKILL now would leave on disk.
	crashed := t.TempDir()
	if err := os.CopyFS(crashed, os.DirFS(home)); err != nil {
		t.Fatal(err)
	}
	stop() // this one stops gracefully: its reply is finished
	if !f1.Record().Streams[0].Finished {
		t.Fatal("a graceful stop did not finish the live reply")
	}

	// The restart after the crash edits the half-written message.
	f2 := channeltest.NewFakeNamed("telegram")
	stop = runGateway(t, filepath.Join(crashed, "config.json"), &logs, f2)
	rec = f2.Await(t, "the cut-off reply edited", func(r channeltest.Record) bool { return len(r.Edits) > 0 })
	time.Sleep(100 * time.Millisecond)
	stop()
	rec = f2.Record()
	if len(rec.Edits) != 1 {
		t.Fatalf("edits = %+v, want one", rec.Edits)
	}
	e := rec.Edits[0]
	if e.Conversation != "42" || e.MessageID != live || !strings.HasPrefix(e.Text, "Part one of the answer.") || !strings.Contains(e.Text, "cut off") {
		t.Fatalf("edit = %+v, want message %s in 42 kept and marked cut off", e, live)
	}

	// Once edited, it is not edited again on the next start.
	f3 := channeltest.NewFakeNamed("telegram")
	stop = runGateway(t, filepath.Join(crashed, "config.json"), &logs, f3)
	time.Sleep(300 * time.Millisecond)
	stop()
	if n := len(f3.Record().Edits); n != 0 {
		t.Fatalf("the cut-off reply was edited again on the next start: %+v", f3.Record().Edits)
	}
	// A reply that finished is never edited after a restart.
	f4 := channeltest.NewFakeNamed("telegram")
	stop = runGateway(t, cfgPath, &logs, f4)
	time.Sleep(300 * time.Millisecond)
	stop()
	if n := len(f4.Record().Edits); n != 0 {
		t.Fatalf("a finished reply was edited after a restart: %+v", f4.Record().Edits)
	}
}
