package gateway

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayLiveTurnStreamsWithStatusAndTyping: on a channel that can
// stream, the answer is one live message: a typing indicator while the
// turn runs, a status line per tool call, the text as it streams, and the
// final reply in place of it; nothing goes through Send.
func TestGatewayLiveTurnStreamsWithStatusAndTyping(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("list_dir", `{"path":"."}`)),
		providertest.Text("All tidy."),
	)
	cfgPath := gatewayConfig(t, srv, "42")
	ch := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "tidy?", MessageID: "3", IsDirect: true})
	rec := ch.Await(t, "a finished live reply", func(r channeltest.Record) bool { return len(r.Streams) == 1 && r.Streams[0].Finished })
	s := rec.Streams[0]
	if s.Final != "All tidy." || s.Conversation != "42" || s.ReplyTo != "3" || !s.Stoppable {
		t.Fatalf("stream = %+v", s)
	}
	if len(s.Statuses) == 0 || !strings.HasPrefix(s.Statuses[0], "⚙️ list_dir") {
		t.Fatalf("no tool status line: %q", s.Statuses)
	}
	rec = ch.Await(t, "the typing indicator stopped", func(r channeltest.Record) bool { return len(r.Typing) == 1 && r.Typing[0].Stopped })
	stop()
	if len(rec.Sent) != 0 {
		t.Fatalf("a live reply also went through Send: %+v", rec.Sent)
	}
}

// TestGatewayStopButtonKeepsWhatWasWritten: pressing Stop ends the turn;
// the live message keeps the answer so far and says it was stopped.
func TestGatewayStopButtonKeepsWhatWasWritten(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	asked := make(chan struct{}, 1)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release
		return providertest.Text("too late")
	})
	cfgPath := gatewayConfig(t, srv, "42")
	ch := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "think hard", MessageID: "4", IsDirect: true})
	rec := ch.Await(t, "a live reply", func(r channeltest.Record) bool { return len(r.Streams) == 1 })
	select {
	case <-asked:
	case <-time.After(channeltest.AwaitTimeout):
		t.Fatal("the model was never asked")
	}
	if !rec.Streams[0].PressStop() {
		t.Fatal("the live reply has no stop control")
	}
	rec = ch.Await(t, "the stopped reply", func(r channeltest.Record) bool { return r.Streams[0].Finished })
	stop()
	if got := rec.Streams[0].Final; !strings.Contains(got, "Stopped") {
		t.Fatalf("final = %q", got)
	}
}

// TestGatewayAsksForShellApprovalInTheChat: with shell approval on, a
// command the model wants to run is put to the chat the turn came from;
// a denial reaches the model as a refusal and nothing runs.
func TestGatewayAsksForShellApprovalInTheChat(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"touch approved.txt"}`)),
		providertest.Text("Not run."),
	)
	cfgPath := gatewayConfig(t, srv, "42")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tools.ShellApproval = "always"
	cfg.Tools.ShellAllow = []string{"touch"}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	ch := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "make a file", MessageID: "5", IsDirect: true})
	rec := ch.Await(t, "an approval prompt", func(r channeltest.Record) bool { return len(r.PendingApprovals()) == 1 })
	a := rec.PendingApprovals()[0]
	if a.Conversation != "42" || !strings.Contains(a.Prompt, "touch approved.txt") || !strings.HasPrefix(a.RequestID, "5-") {
		t.Fatalf("approval = %+v", a)
	}
	if !a.Answer(channels.DecisionDeny) {
		t.Fatal("the prompt could not be answered")
	}
	rec = ch.Await(t, "the reply", func(r channeltest.Record) bool { return len(r.Streams) == 1 && r.Streams[0].Finished })
	stop()
	if rec.Streams[0].Final != "Not run." {
		t.Fatalf("final = %q", rec.Streams[0].Final)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if res := last[len(last)-1].Content; !strings.Contains(strings.ToLower(res), "denied") {
		t.Fatalf("the model was not told of the denial: %q", res)
	}
}

// TestGatewayLiveTurnSaysItIsWaiting: a model slow to begin shows in the
// live reply as a status line saying how long it has waited, cleared
// when the answer starts, with the typing indicator on meanwhile.
func TestGatewayLiveTurnSaysItIsWaiting(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Content: "At last.", Delay: 2500 * time.Millisecond})
	cfgPath := gatewayConfig(t, srv, "42")
	ch := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "slow?", MessageID: "3", IsDirect: true})
	rec := ch.Await(t, "a finished live reply", func(r channeltest.Record) bool { return len(r.Streams) == 1 && r.Streams[0].Finished })
	stop()
	s := rec.Streams[0]
	if s.Final != "At last." {
		t.Fatalf("final = %q", s.Final)
	}
	if len(s.Statuses) < 2 || s.Statuses[0] != "⏳ waiting for the model (2s)" || s.Statuses[len(s.Statuses)-1] != "" {
		t.Fatalf("statuses = %q", s.Statuses)
	}
	if len(rec.Typing) != 1 {
		t.Fatalf("typing = %+v", rec.Typing)
	}
}
