package gateway

import (
	"context"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/channels"
)

// publishMenus gives every channel with a command menu the one command
// table, so the menu lists exactly what the agent answers (an adapter that
// can publish only once connected keeps it until then). Best effort: a
// channel that refuses keeps working without a menu.
func (g *Gateway) publishMenus(ctx context.Context, chans []channels.Channel) {
	all := commands.All()
	menu := make([]channels.Command, len(all))
	for i, c := range all {
		menu[i] = channels.Command{Name: c.Name, Description: c.Summary}
	}
	for _, ch := range chans {
		if m, ok := ch.(channels.CommandMenu); ok {
			if err := m.SetCommands(ctx, menu); err != nil {
				g.log.Warn("command menu not published", "channel", ch.Name(), "err", err)
			}
		}
	}
}

// offerChoices sends a reply's choices (a bare /model, /personality or
// /agent) as buttons on channels that have them; a press runs the choice's
// command as if typed. Elsewhere the reply text already lists them.
func (g *Gateway) offerChoices(ctx context.Context, ch channels.Channel, inb channels.Inbound, res *agent.Reply) {
	if res == nil || len(res.Choices) == 0 {
		return
	}
	p, ok := ch.(channels.Picker)
	if !ok {
		return
	}
	choices := make([]channels.Choice, len(res.Choices))
	for i, c := range res.Choices {
		label := c.Label
		if c.Current {
			label = "✓ " + label
		}
		choices[i] = channels.Choice{Label: label, Value: c.Command}
	}
	if err := p.SendPicker(ctx, inb.Conversation, "Tap to switch:", choices, inb.MessageID); err != nil {
		g.log.Warn("choices not offered as buttons", "channel", inb.Channel, "err", err)
	}
}
