package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/discord"
	"github.com/joshbot/joshbot/channels/slack"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/webhook"
	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// surfaceChannels builds the Discord and Slack adapters and the webhook
// receiver the config enables.
func (a *app) surfaceChannels(rt *wired) ([]channels.Channel, error) {
	var out []channels.Channel
	cfg := rt.cfg
	spool := gatewaySpoolDir(rt.home)
	if dc := cfg.Channels.Discord; dc.Enabled {
		token, err := dc.DiscordToken()
		if err != nil {
			return nil, err
		}
		d, err := discord.New(&discord.Options{
			Token:                token,
			SpoolDir:             spool,
			RespondToAllChannels: dc.RespondToAllChannels,
			ReadAllContent:       dc.RespondToAll,
			CursorFile:           filepath.Join(rt.home, "gateway", "discord-cursors.json"),
			Logger:               a.log,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if sc := cfg.Channels.Slack; sc.Enabled {
		app, bot, err := sc.Tokens()
		if err != nil {
			return nil, err
		}
		s, err := slack.New(&slack.Options{AppToken: app, BotToken: bot, SpoolDir: spool, Logger: a.log})
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if w := cfg.Webhooks; w.Listen != "" {
		routes := make([]webhook.Route, len(w.Routes))
		for i, r := range w.Routes {
			secret, err := r.Secret(webhookKey(i))
			if err != nil {
				return nil, err
			}
			routes[i] = webhook.Route{Name: r.Name, Path: r.Path, Secret: secret, Agent: r.Agent, Events: r.Events}
		}
		rx, err := webhook.New(&webhook.Options{Addr: w.Listen, Routes: routes, MaxBody: w.MaxBodyBytes, Logger: a.log})
		if err != nil {
			return nil, err
		}
		out = append(out, rx)
	}
	return out, nil
}

func webhookKey(i int) string { return fmt.Sprintf("webhooks.routes[%d]", i) }

// routerPolicy returns the allowlists and respond-to-all switches of every
// chat channel, by channel name, for the router. Webhooks have neither:
// their deliveries are Trusted.
func routerPolicy(cfg *config.Config) (allow map[string][]string, respondAll map[string]bool) {
	c := cfg.Channels
	allow = map[string][]string{
		"telegram":   c.Telegram.AllowFrom,
		discord.Name: c.Discord.AllowFrom,
		slack.Name:   c.Slack.AllowFrom,
	}
	respondAll = map[string]bool{
		"telegram":   c.Telegram.RespondToAll,
		discord.Name: c.Discord.RespondToAll,
		slack.Name:   c.Slack.RespondToAll,
	}
	return allow, respondAll
}

// chatNames is names without the webhook receiver, whose senders are
// authenticated by signature, not an allowlist.
func chatNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n != webhook.Name {
			out = append(out, n)
		}
	}
	return out
}

// typingChannel shows a typing indicator for a turn (Discord).
type typingChannel interface {
	Typing(ctx context.Context, conversation string) (stop func())
}

// discordMenu is a channel whose command menu is Discord's application
// commands.
type discordMenu interface {
	SetCommands(ctx context.Context, menu []discord.Command) error
}

// publishDiscordMenus publishes the shared command table on Discord once
// the gateway connection knows the application id, retrying for a minute.
// Best effort: without a menu typed commands still work.
func (a *app) publishDiscordMenus(ctx context.Context, chans []channels.Channel) {
	all := commands.All()
	menu := make([]discord.Command, len(all))
	for i, c := range all {
		desc := []rune(c.Summary)
		if len(desc) > 100 {
			desc = append(desc[:99], '…')
		}
		menu[i] = discord.Command{Name: c.Name, Description: string(desc)}
	}
	for _, ch := range chans {
		m, ok := ch.(discordMenu)
		if !ok {
			continue
		}
		go func() {
			var err error
			for i := 0; i < 30; i++ {
				if err = m.SetCommands(ctx, menu); err == nil {
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(2 * time.Second):
				}
			}
			a.log.Warn("command menu not published", "channel", ch.Name(), "err", err)
		}()
	}
}

// profileTurn selects inb.Agent for the turn's session with the agent's own
// /agent command, so a trusted delivery runs under the profile its route
// names. Only Trusted inbounds carry Agent (the router clears it on the
// rest).
func (a *app) profileTurn(ctx context.Context, rt *wired, inb channels.Inbound, req agent.Request) {
	if !inb.Trusted || inb.Agent == "" {
		return
	}
	sel := req
	sel.Text = "/agent " + inb.Agent
	sel.Untrusted = "" // joshbot's own command, from the route's config
	if _, err := rt.agent.Process(ctx, sel); err != nil {
		a.log.Error("agent profile not selected for a webhook delivery", "agent", inb.Agent, "err", err)
	}
}

// channelStartError words an adapter's reason for stopping in joshbot's
// config keys: the adapters name their Options fields, which the operator
// never sees.
func channelStartError(err error) error {
	switch {
	case errors.Is(err, telegram.ErrUnauthorized):
		return errors.New("the Telegram Bot API refused the bot token (401/404): check the token in channels.telegram.token or the variable channels.telegram.token_env names, and channels.telegram.api_url if set")
	case errors.Is(err, discord.ErrUnauthorized):
		return errors.New("discord refused the bot token: check the variable channels.discord.token_env names against the developer portal")
	case errors.Is(err, discord.ErrDisallowedIntents):
		return errors.New("discord refused the Message Content intent that channels.discord.respond_to_all(_channels) needs: enable it under Bot > Privileged Gateway Intents, or remove those keys")
	case errors.Is(err, slack.ErrInvalidAuth):
		return errors.New("slack refused a token: check the variables channels.slack.app_token_env (xapp-, connections:write) and channels.slack.bot_token_env (xoxb-) name")
	case errors.Is(err, webhook.ErrListen):
		var op *net.OpError
		if errors.As(err, &op) {
			return fmt.Errorf("webhooks.listen: %w", op)
		}
		return fmt.Errorf("webhooks.listen: %w", err)
	}
	return err
}
