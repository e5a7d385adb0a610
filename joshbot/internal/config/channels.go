package config

import (
	"net/url"
	"os"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// Channels configures the chat surfaces `joshbot gateway` runs.
type Channels struct {
	// Telegram is the Telegram bot.
	Telegram Telegram `json:"telegram"`
	// Discord is the Discord bot; zero means off.
	Discord Discord `json:"discord,omitzero"`
	// Slack is the Slack app in Socket Mode; zero means off.
	Slack Slack `json:"slack,omitzero"`
}

// Discord configures the Discord adapter.
type Discord struct {
	// MaxChunks caps how many messages one reply may take; a longer reply
	// goes as a short message with the whole text attached as reply.md.
	// Zero means 8; otherwise 1 to 100.
	MaxChunks int `json:"max_chunks,omitempty"`
	// Enabled turns the adapter on.
	Enabled bool `json:"enabled,omitempty"`
	// TokenEnv names the environment variable holding the bot token from
	// the developer portal. Required when enabled; the token itself never
	// goes in the file.
	TokenEnv string `json:"token_env,omitempty"`
	// AllowFrom lists the user ids (or @usernames) allowed to talk to the
	// bot. Empty refuses everyone; "*" admits anyone on purpose.
	AllowFrom []string `json:"allow_from,omitempty"`
	// RespondToAll makes every guild message trigger the bot, not only
	// those that mention or reply to it. It needs the Message Content
	// intent enabled in the developer portal.
	RespondToAll bool `json:"respond_to_all,omitempty"`
	// RespondToAllChannels lists channel ids where every message triggers
	// the bot. Same intent requirement as RespondToAll.
	RespondToAllChannels []string `json:"respond_to_all_channels,omitempty"`
}

// Slack configures the Slack adapter (Socket Mode).
type Slack struct {
	// MaxChunks caps how many messages one reply may take; a longer reply
	// goes as a short message with the whole text attached as reply.md.
	// Zero means 8; otherwise 1 to 100.
	MaxChunks int `json:"max_chunks,omitempty"`
	// Enabled turns the adapter on.
	Enabled bool `json:"enabled,omitempty"`
	// AppTokenEnv names the variable holding the app-level token
	// (xapp-..., scope connections:write) that opens Socket Mode.
	AppTokenEnv string `json:"app_token_env,omitempty"`
	// BotTokenEnv names the variable holding the bot token (xoxb-...)
	// that posts replies.
	BotTokenEnv string `json:"bot_token_env,omitempty"`
	// AllowFrom lists the Slack user ids (U...) allowed to talk to the
	// bot. Empty refuses everyone; "*" admits anyone on purpose.
	AllowFrom []string `json:"allow_from,omitempty"`
	// RespondToAll makes every channel message trigger the bot, not only
	// those that mention it or continue its threads.
	RespondToAll bool `json:"respond_to_all,omitempty"`
}

// DiscordToken returns the Discord bot token from TokenEnv.
func (d *Discord) DiscordToken() (string, error) {
	return envSecret("channels.discord.token_env", d.TokenEnv, "the bot token from the Discord developer portal")
}

// Tokens returns the Slack app-level and bot tokens from their variables.
func (s *Slack) Tokens() (app, bot string, err error) {
	if app, err = envSecret("channels.slack.app_token_env", s.AppTokenEnv, "the app-level token (xapp-...)"); err != nil {
		return "", "", err
	}
	if bot, err = envSecret("channels.slack.bot_token_env", s.BotTokenEnv, "the bot token (xoxb-...)"); err != nil {
		return "", "", err
	}
	return app, bot, nil
}

// envSecret reads the variable that key names. An unset key or variable is
// an error naming both, never a silent empty secret.
func envSecret(key, env, what string) (string, error) {
	if env == "" {
		return "", errorf("%s is not set: name the environment variable holding %s", key, what)
	}
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" {
		return "", errorf("%s names %s, which is not set: export %s", key, env, env)
	}
	redact.AddSecret(v)
	return v, nil
}

// Telegram configures the Telegram adapter.
type Telegram struct {
	// MaxChunks caps how many messages one reply may take; a longer reply
	// goes as a short message with the whole text attached as reply.md.
	// Zero means 8; otherwise 1 to 100.
	MaxChunks int `json:"max_chunks,omitempty"`
	// Enabled turns the adapter on.
	Enabled bool `json:"enabled"`
	// Token is the bot token from @BotFather. Prefer TokenEnv.
	Token string `json:"token,omitempty"`
	// TokenEnv names an environment variable holding the token.
	TokenEnv string `json:"token_env,omitempty"`
	// AllowFrom lists the user ids (or @handles) allowed to talk to the
	// bot. Empty refuses everyone; "*" admits anyone on purpose.
	AllowFrom []string `json:"allow_from"`
	// APIURL points at a self-hosted Bot API server; empty means the
	// public one.
	APIURL string `json:"api_url,omitempty"`
	// RespondToAll makes every group message trigger the bot, not only
	// those that address it.
	RespondToAll bool `json:"respond_to_all,omitempty"`
	// StreamDrafts streams answers as native drafts in private chats.
	StreamDrafts bool `json:"stream_drafts,omitempty"`
	// Reactions acknowledges messages with emoji reactions.
	Reactions bool `json:"reactions,omitempty"`
}

// BotToken returns the Telegram token, from TokenEnv when set.
func (t *Telegram) BotToken() (string, error) {
	if t.TokenEnv != "" {
		v := strings.TrimSpace(os.Getenv(t.TokenEnv))
		if v == "" {
			return "", errorf("channels.telegram.token_env names %s, which is not set: export %s", t.TokenEnv, t.TokenEnv)
		}
		redact.AddSecret(v)
		return v, nil
	}
	if t.Token == "" {
		return "", errorf("channels.telegram is enabled but has no token: set channels.telegram.token_env to the variable holding the token from @BotFather, or export JOSHBOT_CHANNELS__TELEGRAM__TOKEN")
	}
	redact.AddSecret(t.Token)
	return t.Token, nil
}

func (c *Channels) validate() error {
	if d := &c.Discord; d.Enabled && d.TokenEnv == "" {
		return errorf("channels.discord is enabled but channels.discord.token_env is empty: name the variable holding the bot token")
	}
	for i, id := range c.Discord.RespondToAllChannels {
		if !isSnowflake(id) {
			return errorf("channels.discord.respond_to_all_channels[%d] %q is not a channel id: copy it with Developer Mode > Copy Channel ID", i, id)
		}
	}
	if s := &c.Slack; s.Enabled && (s.AppTokenEnv == "" || s.BotTokenEnv == "") {
		return errorf("channels.slack is enabled but needs both channels.slack.app_token_env (xapp-) and channels.slack.bot_token_env (xoxb-)")
	}
	t := &c.Telegram
	if t.Token != "" && t.TokenEnv != "" {
		return errorf("channels.telegram sets both token and token_env: keep one (token_env keeps the secret out of the file)")
	}
	if t.APIURL != "" {
		u, err := url.Parse(t.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errorf("channels.telegram.api_url %q is not an http(s) URL: fix it, or remove it to use the public Bot API", t.APIURL)
		}
	}
	for _, mc := range []struct {
		name string
		n    int
	}{{"telegram", c.Telegram.MaxChunks}, {"discord", c.Discord.MaxChunks}, {"slack", c.Slack.MaxChunks}} {
		if mc.n < 0 || mc.n > 100 {
			return errorf("channels.%s.max_chunks is %d: set 1 to 100 messages per reply, or 0 for the default of 8", mc.name, mc.n)
		}
	}
	return nil
}

// isSnowflake reports whether id looks like a Discord id: 17 to 20 digits.
func isSnowflake(id string) bool {
	if len(id) < 17 || len(id) > 20 {
		return false
	}
	for _, r := range id {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
