package runtime

import (
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
)

// OwnerScope is the scope of the owner's learned facts when other people
// use the bot too: a file of its own rather than MEMORY.md, which every
// conversation's prompt shows.
const OwnerScope = "owner:default"

// MemoryScope returns the long-term memory's scope resolver for cfg
// (memory.LongTermOptions.Scope), following agents.defaults.learn_scope:
//
//   - "person" (the default): the owner's sessions ([config.Owner]: the
//     CLI, and their ids on each channel) share one scope, MEMORY.md on a
//     single-person install and OwnerScope when the allowlists admit
//     others; anyone else's session ("channel:id") is that person's own.
//   - "session": nil, each conversation its own scope.
//   - "shared": everyone's facts in MEMORY.md.
func MemoryScope(cfg *config.Config) func(key string) string {
	switch cfg.Agents.Defaults.LearnScope {
	case "session":
		return nil
	case "shared":
		return func(string) string { return memory.SharedScope }
	}
	id := cfg.OwnerIdentities()
	owner := memory.SharedScope
	if id.Others {
		owner = OwnerScope
	}
	return func(key string) string {
		if id.Is(key) {
			return owner
		}
		return key
	}
}
