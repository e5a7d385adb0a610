package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Channels configures the chat surfaces `joshbot gateway` runs.
type Channels struct {
	// Telegram is the Telegram bot.
	Telegram Telegram `json:"telegram"`
}

// Telegram configures the Telegram adapter.
type Telegram struct {
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
			return "", fmt.Errorf("channels.telegram.token_env names %s, which is not set: export %s", t.TokenEnv, t.TokenEnv)
		}
		return v, nil
	}
	if t.Token == "" {
		return "", fmt.Errorf("channels.telegram is enabled but has no token: set channels.telegram.token_env to the variable holding the token from @BotFather, or export JOSHBOT_CHANNELS__TELEGRAM__TOKEN")
	}
	return t.Token, nil
}

func (c *Channels) validate() error {
	t := &c.Telegram
	if t.Token != "" && t.TokenEnv != "" {
		return fmt.Errorf("channels.telegram sets both token and token_env: keep one (token_env keeps the secret out of the file)")
	}
	if t.APIURL != "" {
		u, err := url.Parse(t.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("channels.telegram.api_url %q is not an http(s) URL: fix it, or remove it to use the public Bot API", t.APIURL)
		}
	}
	return nil
}
