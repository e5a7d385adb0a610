package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/memory"
)

func (a *app) sessionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, search, export and clear stored conversations",
		Long: "Every conversation is a session named channel:sender (cli:default, telegram:12345, ...).\n" +
			"Output passes through redaction. prune and new change what is stored: they ask first,\n" +
			"take --force for unattended use, and fail rather than wait when there is no terminal.",
	}
	cmd.AddCommand(a.sessionsList(), a.sessionsShow(), a.sessionsSearch(), a.sessionsPrune(), a.sessionsNew(), a.sessionsExport())
	return cmd
}

func (a *app) sessionsList() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List sessions, most recently updated first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			list, err := st.Sessions.List()
			if err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stdout, "No sessions yet.")
				return nil
			}
			w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SESSION\tMESSAGES\tSIZE\tUPDATED")
			for _, in := range list {
				snap, err := st.Sessions.Read(in.Key)
				if err != nil {
					fmt.Fprintf(w, "%s\t?\t%d\t%s\n", in.Key, in.Size, in.Updated.UTC().Format(time.DateTime))
					continue
				}
				n := strconv.Itoa(len(snap.Messages))
				if snap.Unreadable > 0 {
					n += fmt.Sprintf(" (+%d unreadable)", snap.Unreadable)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", in.Key, n, report.HumanSize(in.Size), in.Updated.UTC().Format(time.DateTime))
			}
			return w.Flush()
		},
	}
}

func (a *app) sessionsShow() *cobra.Command {
	var last int
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Print a session's messages (redacted)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if last < 0 {
				return fmt.Errorf("--last %d: give a positive number of messages, or 0 for all", last)
			}
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			snap, err := readSession(st.Sessions, args[0])
			if err != nil {
				return err
			}
			msgs := snap.Messages
			if last > 0 && len(msgs) > last {
				msgs = msgs[len(msgs)-last:]
			}
			w := bufio.NewWriter(a.stdout)
			for i := range msgs {
				fmt.Fprintln(w, redact.String(report.MessageLine(&msgs[i])))
			}
			if snap.Unreadable > 0 {
				fmt.Fprintf(w, "(%d unreadable lines skipped; `joshbot sessions export` records them)\n", snap.Unreadable)
			}
			return w.Flush()
		},
	}
	cmd.Flags().IntVar(&last, "last", 0, "show only the last N messages")
	return cmd
}

// readSession is Store.Read with errors a user can act on.
func readSession(store *memory.Store, key string) (*memory.Snapshot, error) {
	snap, err := store.Read(key)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no session %q: `joshbot sessions list` shows the sessions there are", key)
	}
	return snap, err
}

func (a *app) sessionsSearch() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Find messages containing text in every session, newest first (case-insensitive, redacted)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 {
				return fmt.Errorf("--limit %d: give a positive number", limit)
			}
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			hits, err := st.Sessions.Search(strings.Join(args, " "), &memory.SearchOptions{Limit: limit})
			if err != nil {
				return err
			}
			if len(hits) == 0 {
				fmt.Fprintln(a.stdout, "No matches.")
				return nil
			}
			w := bufio.NewWriter(a.stdout)
			for i := range hits {
				h := &hits[i]
				where := h.Key
				if h.Archived {
					where += " (archive)"
				}
				fmt.Fprintf(w, "%s  %s\n", where, redact.String(report.ClipLine(report.MessageLine(&h.Message), 400)))
			}
			return w.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", memory.DefaultSearchLimit, "most matches to print")
	return cmd
}

func (a *app) sessionsPrune() *cobra.Command {
	var olderThan string
	var force bool
	cmd := &cobra.Command{
		Use:   "prune <id> | --older-than <age>",
		Short: "Delete a session, or every session not updated for a while (30d, 12h, 2w)",
		Long: "Deletes the transcript, its metadata, its history archive and its quarantine files.\n" +
			"Asks for confirmation; --force skips the question.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (olderThan != "") {
				return errors.New("give either a session id or --older-than <age>, not both and not neither")
			}
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			var keys []string
			if len(args) == 1 {
				if _, err := st.Sessions.Path(args[0]); err != nil {
					return err
				}
				if _, err := readSession(st.Sessions, args[0]); err != nil {
					return err
				}
				keys = []string{args[0]}
			} else {
				age, err := parseAge(olderThan)
				if err != nil {
					return fmt.Errorf("--older-than %q: %w", olderThan, err)
				}
				list, err := st.Sessions.List()
				if err != nil {
					return err
				}
				cutoff := time.Now().Add(-age)
				for _, in := range list {
					if in.Updated.Before(cutoff) {
						keys = append(keys, in.Key)
					}
				}
				if len(keys) == 0 {
					fmt.Fprintf(a.stdout, "No session is older than %s.\n", olderThan)
					return nil
				}
			}
			if err := a.confirm(force, fmt.Sprintf("Delete %d session(s) and their archives: %s?", len(keys), strings.Join(keys, ", "))); err != nil {
				return err
			}
			for _, k := range keys {
				// A turn of k running in another process ends first.
				unlock, err := st.Sessions.Lock(cmd.Context(), k)
				if err != nil {
					return err
				}
				err = st.Sessions.Remove(k)
				unlock()
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "Deleted %s.\n", k)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete sessions not updated for this long (e.g. 30d, 12h, 2w)")
	cmd.Flags().BoolVar(&force, "force", false, "do not ask for confirmation")
	return cmd
}

func (a *app) sessionsNew() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "new <id>",
		Short: "Start a session afresh (its messages move to its history archive)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			key := args[0]
			if _, err := st.Sessions.Path(key); err != nil {
				return err
			}
			if err := a.confirm(force, fmt.Sprintf("Start %s afresh? Its messages move to its history archive and its model and personality reset.", key)); err != nil {
				return err
			}
			// Held so a turn running in another process cannot save the
			// old messages back over the reset.
			unlock, err := st.Sessions.Lock(cmd.Context(), key)
			if err != nil {
				return err
			}
			defer unlock()
			if err := st.Sessions.Reset(key); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Session %s starts afresh.\n", key)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "do not ask for confirmation")
	return cmd
}

// errNoTerminal is returned by confirm when nobody can answer.
var errNoTerminal = errors.New("this changes stored sessions and there is no terminal to confirm on: pass --force to go ahead")

// confirm asks question on the terminal. Without one it fails at once
// rather than wait on input that will never come.
func (a *app) confirm(force bool, question string) error {
	if force {
		return nil
	}
	if !isTerminal(a.stdin) {
		return errNoTerminal
	}
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return exitError{code: 1}
}

// parseAge reads a Go duration or a number of days ("30d") or weeks
// ("2w").
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.Atoi(n)
		if err != nil {
			return 0, errors.New("use a duration such as 30d, 2w or 12h")
		}
		d = time.Duration(v) * 24 * time.Hour
	} else if n, ok := strings.CutSuffix(s, "w"); ok {
		v, err := strconv.Atoi(n)
		if err != nil {
			return 0, errors.New("use a duration such as 30d, 2w or 12h")
		}
		d = time.Duration(v) * 7 * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errors.New("use a duration such as 30d, 2w or 12h")
		}
	}
	if d <= 0 {
		return 0, errors.New("the age must be positive")
	}
	return d, nil
}

func (a *app) sessionsExport() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export <id>",
		Short: "Write a session as a Markdown transcript and a JSON manifest, for a bug report",
		Long: "Writes <id>.md and <id>.manifest.json (the colon in the id becomes an underscore) into\n" +
			"--out (default: the current directory). Both are redacted before they are written and\n" +
			"are byte-identical for an unchanged session. The session file is read, never repaired.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			if _, err := st.Sessions.Path(args[0]); err != nil {
				return err
			}
			snap, err := readSession(st.Sessions, args[0])
			if err != nil {
				return err
			}
			path, _ := st.Sessions.Path(args[0])
			md, manifest, err := report.RenderExport(snap, filepath.Base(path))
			if err != nil {
				return err
			}
			base := strings.ReplaceAll(snap.Key, ":", "_")
			mdPath := filepath.Join(out, base+".md")
			manPath := filepath.Join(out, base+".manifest.json")
			if err := report.WritePrivate(mdPath, md); err != nil {
				return err
			}
			if err := report.WritePrivate(manPath, manifest); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Wrote %s and %s.\n", mdPath, manPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", ".", "directory to write the export into")
	return cmd
}
