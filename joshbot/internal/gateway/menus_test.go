package gateway

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/providers/providertest"
)

// buttonChannel is a fake channel with a command menu and pickers.
type buttonChannel struct {
	*fakeChannel
	mu      sync.Mutex
	menu    []telegram.Command
	pickers [][]telegram.Choice
	picked  chan struct{}
}

func (b *buttonChannel) SetCommands(_ context.Context, menu []telegram.Command) error {
	b.mu.Lock()
	b.menu = menu
	b.mu.Unlock()
	return nil
}

func (b *buttonChannel) SendPicker(_ context.Context, _, _ string, choices []telegram.Choice, _ string) error {
	b.mu.Lock()
	b.pickers = append(b.pickers, choices)
	b.mu.Unlock()
	b.picked <- struct{}{}
	return nil
}

func TestGatewayPublishesMenuAndOffersChoicesAsButtons(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := gatewayConfig(t, srv, "42")
	ch := &buttonChannel{fakeChannel: newFakeChannel(), picked: make(chan struct{}, 1)}
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, ch)
	ch.in <- channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "/personality", MessageID: "1", IsDirect: true}
	select {
	case <-ch.picked:
	case <-time.After(10 * time.Second):
		t.Fatal("no picker")
	}
	stop()
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if len(ch.menu) != len(commands.All()) || ch.menu[1].Name != "model" {
		t.Fatalf("menu = %+v", ch.menu)
	}
	var values []string
	for _, c := range ch.pickers[0] {
		values = append(values, c.Label+"="+c.Value)
	}
	got := strings.Join(values, ",")
	if !strings.Contains(got, "✓ default=/personality default") || !strings.Contains(got, "concise=/personality concise") {
		t.Fatalf("picker = %s", got)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a command reached the model")
	}
}
