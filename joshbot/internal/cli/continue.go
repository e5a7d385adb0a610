package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/memory"
)

// continueSession picks the session to continue and prints a one-line
// recap of it on stderr, where it cannot mix with a reply that a script
// reads from stdout: named when it is not empty, else the command line's
// own most recently updated conversation (a "cli:" key), never a gateway's
// or serve's, which may well be newer.
func continueSession(stderr io.Writer, store *memory.Store, named string) (string, error) {
	list, err := store.List()
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(list, func(in memory.Info) bool {
		if named != "" {
			return in.Key == named
		}
		return strings.HasPrefix(in.Key, "cli:")
	})
	if i < 0 && named != "" {
		return "", errorf("--continue: there is no session %s; see `joshbot sessions list`, or drop --continue to start it", named)
	}
	if i < 0 {
		return "", errors.New("--continue: the command line has no session yet; start one with `joshbot agent`, or name another with --session")
	}
	info := list[i]
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
		recap += fmt.Sprintf("; last asked: %q", report.ClipLine(redact.String(last), 80))
	}
	fmt.Fprintln(stderr, recap)
	return info.Key, nil
}
