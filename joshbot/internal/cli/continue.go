package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/memory"
)

// continueSession picks the most recently updated session and prints a
// one-line recap of it on stderr, where it cannot mix with a reply that a
// script reads from stdout.
func (a *app) continueSession(store *memory.Store) (string, error) {
	list, err := store.List()
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", errors.New("--continue: there is no session yet; start one with `joshbot agent`")
	}
	info := list[0]
	snap, err := store.Read(info.Key)
	if err != nil {
		return "", err
	}
	last := ""
	for i := len(snap.Messages) - 1; i >= 0; i-- {
		if m := snap.Messages[i]; m.Role == "user" && m.Kind == "" {
			last = m.Content
			break
		}
	}
	recap := fmt.Sprintf("continuing %s: %d messages, last active %s ago", info.Key, len(snap.Messages), time.Since(info.Updated).Round(time.Second))
	if last != "" {
		recap += fmt.Sprintf("; last asked: %q", clipLine(redact.String(last), 80))
	}
	fmt.Fprintln(a.stderr, recap)
	return info.Key, nil
}
