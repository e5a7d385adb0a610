package config

import (
	"fmt"
	"strings"
)

// Owner declares the person who runs this joshbot: their identities on each
// surface, which share one long-term memory (see agents.defaults.learn_scope
// "person"). Zero means inferred: the CLI user, plus each channel's single
// allowlisted id when no channel admits more than one person (see
// [Config.OwnerIdentities]).
type Owner struct {
	// CLI makes the terminal user (the `agent` command, and cron jobs it
	// scheduled) the owner. Nil means true.
	CLI *bool `json:"cli,omitempty"`
	// Telegram lists the owner's Telegram user ids (or @usernames, as in
	// channels.telegram.allow_from).
	Telegram []string `json:"telegram,omitempty"`
	// Discord lists the owner's Discord user ids.
	Discord []string `json:"discord,omitempty"`
	// Slack lists the owner's Slack user ids (U...).
	Slack []string `json:"slack,omitempty"`
}

// declared reports whether the block was written at all.
func (o *Owner) declared() bool {
	return o.CLI != nil || o.Telegram != nil || o.Discord != nil || o.Slack != nil
}

// Identities are who the owner is on each surface, as
// [Config.OwnerIdentities] resolves them.
type Identities struct {
	// CLI is true when terminal sessions are the owner's.
	CLI bool
	// IDs maps a channel name ("telegram", "discord", "slack") to the
	// owner's ids there, @usernames lowercased as the allowlist matches
	// them.
	IDs map[string]map[string]bool
	// Others is true when an allowlist admits someone who is not the
	// owner (or anyone, with "*"): more than one person uses the bot.
	Others bool
	// Inferred is true when no owner block was written and the owner
	// was inferred from the allowlists.
	Inferred bool
}

// Is reports whether the session key ("channel:sender") is one of the
// owner's.
func (id *Identities) Is(key string) bool {
	channel, sender, ok := strings.Cut(key, ":")
	if !ok {
		return false
	}
	if channel == "cli" {
		return id.CLI
	}
	return id.IDs[channel][normID(sender)]
}

func normID(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "@") {
		return strings.ToLower(s)
	}
	return s
}

// allowLists returns each channel's allowlist by channel name.
func (c *Config) allowLists() map[string][]string {
	return map[string][]string{
		"telegram": c.Channels.Telegram.AllowFrom,
		"discord":  c.Channels.Discord.AllowFrom,
		"slack":    c.Channels.Slack.AllowFrom,
	}
}

// OwnerIdentities resolves who the owner is. With an owner block, exactly
// what it declares. Without one, the owner is the CLI user and, when every
// channel's allow_from lists at most one id (and no "*"), those ids: a
// single-person install. With several people on some channel and no owner
// block, only the CLI is known to be the owner.
func (c *Config) OwnerIdentities() *Identities {
	id := &Identities{CLI: true, IDs: map[string]map[string]bool{}}
	lists := c.allowLists()
	if c.Owner.declared() {
		if c.Owner.CLI != nil {
			id.CLI = *c.Owner.CLI
		}
		for ch, ids := range map[string][]string{"telegram": c.Owner.Telegram, "discord": c.Owner.Discord, "slack": c.Owner.Slack} {
			for _, s := range ids {
				if id.IDs[ch] == nil {
					id.IDs[ch] = map[string]bool{}
				}
				id.IDs[ch][normID(s)] = true
			}
		}
		for ch, allow := range lists {
			for _, s := range allow {
				if s = normID(s); s != "" && !id.IDs[ch][s] {
					id.Others = true
				}
			}
		}
		return id
	}
	id.Inferred = true
	single := true
	for _, allow := range lists {
		n := 0
		for _, s := range allow {
			if s = normID(s); s == "*" {
				single = false
			} else if s != "" {
				n++
			}
		}
		if n > 1 {
			single = false
		}
	}
	if !single {
		id.Others = true
		return id
	}
	for ch, allow := range lists {
		for _, s := range allow {
			if s = normID(s); s != "" {
				id.IDs[ch] = map[string]bool{s: true}
			}
		}
	}
	return id
}

// validateOwner checks the owner block, naming the key to change.
func (c *Config) validateOwner() error {
	for ch, ids := range map[string][]string{"telegram": c.Owner.Telegram, "discord": c.Owner.Discord, "slack": c.Owner.Slack} {
		for i, s := range ids {
			s = strings.TrimSpace(s)
			if s == "" || s == "*" || strings.ContainsAny(s, " \t\n:/") {
				return fmt.Errorf("owner.%s[%d] is %q: list the owner's own user ids on %s (as in channels.%s.allow_from), not \"*\" or an empty string", ch, i, ids[i], ch, ch)
			}
		}
	}
	return nil
}
