package gateway

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/discord"
	"github.com/joshbot/joshbot/channels/slack"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/webhook"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// enabledChannels builds the adapters the config enables.
func (g *Gateway) enabledChannels(rt *runtime.Runtime) ([]channels.Channel, error) {
	out := append([]channels.Channel(nil), g.extra...)
	if tg := rt.Config.Channels.Telegram; tg.Enabled {
		token, err := tg.BotToken()
		if err != nil {
			return nil, err
		}
		// Voice notes are transcribed when stt is configured; otherwise the
		// adapter answers honestly that it cannot listen yet.
		var voice telegram.Transcriber
		stt, _, err := runtime.Services(rt.Config)
		if err != nil {
			return nil, err
		}
		if stt != nil {
			voice = runtime.VoiceTranscriber{T: stt}
		}
		adapter, err := telegram.New(&telegram.Options{
			Token:        token,
			APIURL:       tg.APIURL,
			SpoolDir:     gatewaySpoolDir(rt.Home),
			MaxChunks:    tg.MaxChunks,
			StreamDrafts: tg.StreamDrafts,
			Reactions:    tg.Reactions,
			Transcriber:  voice,
			Logger:       g.log,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, adapter)
	}
	more, err := g.surfaceChannels(rt)
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	return out, nil
}

// surfaceChannels builds the Discord and Slack adapters and the webhook
// receiver the config enables.
func (g *Gateway) surfaceChannels(rt *runtime.Runtime) ([]channels.Channel, error) {
	var out []channels.Channel
	cfg := rt.Config
	spool := gatewaySpoolDir(rt.Home)
	if dc := cfg.Channels.Discord; dc.Enabled {
		token, err := dc.DiscordToken()
		if err != nil {
			return nil, err
		}
		d, err := discord.New(&discord.Options{
			Token:                token,
			SpoolDir:             spool,
			MaxChunks:            dc.MaxChunks,
			RespondToAllChannels: dc.RespondToAllChannels,
			ReadAllContent:       dc.RespondToAll,
			CursorFile:           filepath.Join(rt.Home, "gateway", "discord-cursors.json"),
			Logger:               g.log,
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
		s, err := slack.New(&slack.Options{AppToken: app, BotToken: bot, SpoolDir: spool, MaxChunks: sc.MaxChunks, Logger: g.log})
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
		rx, err := webhook.New(&webhook.Options{Addr: w.Listen, Routes: routes, MaxBody: w.MaxBodyBytes, Logger: g.log,
			StateDir: filepath.Join(g.rt.Home, "gateway")})
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
			return errorf("webhooks.listen: %w", op)
		}
		return errorf("webhooks.listen: %w", err)
	}
	return err
}
