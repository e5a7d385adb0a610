package gateway

import (
	"bytes"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayPublishesMenuAndOffersChoicesAsButtons: a channel with a
// command menu gets the agent's one command table, a bare /personality is
// answered with a picker, and a pick runs the choice's command as if typed.
func TestGatewayPublishesMenuAndOffersChoicesAsButtons(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := gatewayConfig(t, srv, "42")
	ch := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "/personality", MessageID: "1", IsDirect: true})
	rec := ch.Await(t, "a picker", func(r channeltest.Record) bool { return len(r.Pickers) == 1 })
	if len(rec.Menus) != 1 || len(rec.Menus[0]) != len(commands.All()) || rec.Menus[0][1].Name != "model" {
		t.Fatalf("menus = %+v", rec.Menus)
	}
	p := rec.Pickers[0]
	var values []string
	concise := -1
	for i, c := range p.Choices {
		values = append(values, c.Label+"="+c.Value)
		if c.Value == "/personality concise" {
			concise = i
		}
	}
	got := strings.Join(values, ",")
	if !strings.Contains(got, "✓ default=/personality default") || concise < 0 || p.Conversation != "42" || p.ReplyTo != "1" {
		t.Fatalf("picker %+v: %s", p, got)
	}
	if err := p.Pick("42", concise); err != nil {
		t.Fatal(err)
	}
	rec = ch.Await(t, "the pick's answer", func(r channeltest.Record) bool {
		return len(r.Streams) == 2 && r.Streams[1].Finished
	})
	if final := rec.Streams[1].Final; !strings.Contains(final, "concise") {
		t.Fatalf("the pick was not run as /personality concise: %q", final)
	}
	stop()
	if len(srv.Requests()) != 0 {
		t.Fatal("a command reached the model")
	}
}
