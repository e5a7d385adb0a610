package config

import (
	"strings"
)

// Owner declares the person who runs this joshbot: their identities on each
// surface, which share one long-term memory (see agents.defaults.learn_scope
// "person"). Zero means inferred: the CLI user, plus each channel's single
// allowlisted id when no channel admits more than one person (see
// runtime.OwnerIdentities).
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

// Declared reports whether the block was written at all.
func (o *Owner) Declared() bool {
	return o.CLI != nil || o.Telegram != nil || o.Discord != nil || o.Slack != nil
}

// validateOwner checks the owner block, naming the key to change.
func (c *Config) validateOwner() error {
	for ch, ids := range map[string][]string{"telegram": c.Owner.Telegram, "discord": c.Owner.Discord, "slack": c.Owner.Slack} {
		for i, s := range ids {
			s = strings.TrimSpace(s)
			if s == "" || s == "*" || strings.ContainsAny(s, " \t\n:/") {
				return errorf("owner.%s[%d] is %q: list the owner's own user ids on %s (as in channels.%s.allow_from), not \"*\" or an empty string", ch, i, ids[i], ch, ch)
			}
		}
	}
	return nil
}
