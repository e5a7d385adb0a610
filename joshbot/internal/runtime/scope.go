package runtime

import (
	"strings"

	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
)

// OwnerScope is the scope of the owner's learned facts when other people
// use the bot too: a file of its own rather than MEMORY.md, which every
// conversation's prompt shows.
const OwnerScope = "owner:default"

// derivedAPIScope is the scope of the API's derived conversations.
const derivedAPIScope = "api:default"

// MemoryScope returns the long-term memory's scope resolver for cfg
// (memory.LongTermOptions.Scope), following agents.defaults.learn_scope:
//
//   - "person" (the default): the owner's sessions ([config.Owner]: the
//     CLI, and their ids on each channel) share one scope, MEMORY.md on a
//     single-person install and OwnerScope when the allowlists admit
//     others; anyone else's session ("channel:id") is that person's own.
//     The API's conversations derived from a request's messages
//     ([apiserver.DerivedKeyPrefix], one per chat window) are one
//     person's: they share the scope "api:default", the one conversation
//     such requests had before they were told apart.
//   - "session": nil, each conversation its own scope.
//   - "shared": everyone's facts in MEMORY.md.
func MemoryScope(cfg *config.Config) func(key string) string {
	switch cfg.Agents.Defaults.LearnScope {
	case "session":
		return nil
	case "shared":
		return func(string) string { return memory.SharedScope }
	}
	id := OwnerIdentities(cfg)
	owner := memory.SharedScope
	if id.Others {
		owner = OwnerScope
	}
	return func(key string) string {
		if strings.HasPrefix(key, apiserver.DerivedKeyPrefix) {
			key = derivedAPIScope
		}
		if id.Is(key) {
			return owner
		}
		return key
	}
}

// Identities are who the owner is on each surface, as
// [OwnerIdentities] resolves them.
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
func allowLists(c *config.Config) map[string][]string {
	return map[string][]string{
		"telegram": c.Channels.Telegram.AllowFrom,
		"discord":  c.Channels.Discord.AllowFrom,
		"slack":    c.Channels.Slack.AllowFrom,
	}
}

// OwnerIdentities resolves who the owner of cfg c is. With an owner block, exactly
// what it declares. Without one, the owner is the CLI user and, when every
// channel's allow_from lists at most one id (and no "*"), those ids: a
// single-person install. With several people on some channel and no owner
// block, only the CLI is known to be the owner.
func OwnerIdentities(c *config.Config) *Identities {
	id := &Identities{CLI: true, IDs: map[string]map[string]bool{}}
	lists := allowLists(c)
	if c.Owner.Declared() {
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
