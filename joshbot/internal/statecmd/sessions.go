package statecmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
)

// NewSessionsCmd is `joshbot sessions` and its subcommands.
func NewSessionsCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, search, export and clear stored conversations",
		Long: "Every conversation is a session named channel:sender (cli:default, telegram:12345, ...).\n" +
			"Output passes through redaction. prune and new change what is stored: they ask first,\n" +
			"take --force for unattended use, and fail rather than wait when there is no terminal.",
	}
	cmd.AddCommand(newSessionsListCmd(f, runSessionsList), newSessionsShowCmd(f, runSessionsShow),
		newSessionsSearchCmd(f, runSessionsSearch), newSessionsPruneCmd(f, runSessionsPrune),
		newSessionsNewCmd(f, runSessionsNew), newSessionsExportCmd(f, runSessionsExport))
	return cmd
}

// storedOptions is what a command that reads the stored state needs of
// the Factory.
type storedOptions struct {
	IO     *cmdutil.Streams
	Stored func() (*runtime.Stored, error)
}

func stored(f *cmdutil.Factory) storedOptions { return storedOptions{IO: f.IO, Stored: f.LoadStored} }

// sessionsListOptions is what `sessions list` runs with.
type sessionsListOptions struct{ storedOptions }

func newSessionsListCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsListOptions) error) *cobra.Command {
	opts := &sessionsListOptions{stored(f)}
	return &cobra.Command{
		Use:   "list",
		Short: "List sessions, most recently updated first",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runSessionsList(_ context.Context, opts *sessionsListOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	st, err := opts.Stored()
	if err != nil {
		return fail(err)
	}
	list, err := st.Sessions.List()
	if err != nil {
		return fail(err)
	}
	doc := &output.SessionList{SchemaVersion: output.SchemaVersion, Sessions: []output.SessionItem{}}
	for _, in := range list {
		item := output.SessionItem{Key: in.Key, SizeBytes: in.Size, Updated: in.Updated.UTC()}
		if snap, err := st.Sessions.Read(in.Key); err == nil {
			n := len(snap.Messages)
			item.Messages, item.Unreadable = &n, snap.Unreadable
		}
		doc.Sessions = append(doc.Sessions, item)
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// sessionsShowOptions is what `sessions show` runs with.
type sessionsShowOptions struct {
	storedOptions
	Key string
	// Last is --last: only the last N messages; 0 for all.
	Last int
}

func newSessionsShowCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsShowOptions) error) *cobra.Command {
	opts := &sessionsShowOptions{storedOptions: stored(f)}
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Print a session's messages (redacted)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Last < 0 {
				return errorf("--last %d: give a positive number of messages, or 0 for all", opts.Last)
			}
			opts.Key = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Last, "last", 0, "show only the last N messages")
	return cmd
}

func runSessionsShow(_ context.Context, opts *sessionsShowOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	st, err := opts.Stored()
	if err != nil {
		return fail(err)
	}
	snap, err := readSession(st.Sessions, opts.Key)
	if err != nil {
		return fail(err)
	}
	msgs := snap.Messages
	if opts.Last > 0 && len(msgs) > opts.Last {
		msgs = msgs[len(msgs)-opts.Last:]
	}
	doc := &output.SessionShow{SchemaVersion: output.SchemaVersion, Key: snap.Key, Total: len(snap.Messages),
		Messages: []output.MessageItem{}, Unreadable: snap.Unreadable}
	for i := range msgs {
		doc.Messages = append(doc.Messages, messageItem(&msgs[i]))
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// messageItem is m as a report shows it: redacted, since a JSON document
// does not pass through the redacting writer.
func messageItem(m *memory.Message) output.MessageItem {
	item := report.MessageItem(m)
	item.Content = redact.String(item.Content)
	for i := range item.ToolCalls {
		item.ToolCalls[i].Arguments = redact.String(item.ToolCalls[i].Arguments)
	}
	return item
}

// readSession is Store.Read with errors a user can act on.
func readSession(store *memory.Store, key string) (*memory.Snapshot, error) {
	snap, err := store.Read(key)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errorf("no session %q: `joshbot sessions list` shows the sessions there are", key)
	}
	return snap, err
}

// sessionsSearchOptions is what `sessions search` runs with.
type sessionsSearchOptions struct {
	storedOptions
	Query string
	Limit int
}

func newSessionsSearchCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsSearchOptions) error) *cobra.Command {
	opts := &sessionsSearchOptions{storedOptions: stored(f)}
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Find messages containing text in every session, newest first (case-insensitive, redacted)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit <= 0 {
				return errorf("--limit %d: give a positive number", opts.Limit)
			}
			opts.Query = strings.Join(args, " ")
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Limit, "limit", memory.DefaultSearchLimit, "most matches to print")
	return cmd
}

func runSessionsSearch(_ context.Context, opts *sessionsSearchOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	st, err := opts.Stored()
	if err != nil {
		return fail(err)
	}
	hits, err := st.Sessions.Search(opts.Query, &memory.SearchOptions{Limit: opts.Limit})
	if err != nil {
		return fail(err)
	}
	doc := &output.SessionSearch{SchemaVersion: output.SchemaVersion, Query: redact.String(opts.Query), Hits: []output.SearchHit{}}
	for i := range hits {
		doc.Hits = append(doc.Hits, output.SearchHit{Key: hits[i].Key, Archived: hits[i].Archived, Message: messageItem(&hits[i].Message)})
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// sessionsPruneOptions is what `sessions prune` runs with: one Key, or
// every session not updated for OlderThan.
type sessionsPruneOptions struct {
	storedOptions
	Key       string
	OlderThan string
	Force     bool
	Now       func() time.Time
}

func newSessionsPruneCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsPruneOptions) error) *cobra.Command {
	opts := &sessionsPruneOptions{storedOptions: stored(f), Now: f.Now}
	cmd := &cobra.Command{
		Use:   "prune <id> | --older-than <age>",
		Short: "Delete a session, or every session not updated for a while (30d, 12h, 2w)",
		Long: "Deletes the transcript, its metadata, its history archive and its quarantine files.\n" +
			"Asks for confirmation; --force skips the question.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (opts.OlderThan != "") {
				return errors.New("give either a session id or --older-than <age>, not both and not neither")
			}
			if len(args) == 1 {
				opts.Key = args[0]
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.OlderThan, "older-than", "", "delete sessions not updated for this long (e.g. 30d, 12h, 2w)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "do not ask for confirmation")
	return cmd
}

func runSessionsPrune(ctx context.Context, opts *sessionsPruneOptions) error {
	st, err := opts.Stored()
	if err != nil {
		return err
	}
	var keys []string
	if opts.Key != "" {
		if _, err := st.Sessions.Path(opts.Key); err != nil {
			return err
		}
		if _, err := readSession(st.Sessions, opts.Key); err != nil {
			return err
		}
		keys = []string{opts.Key}
	} else {
		age, err := parseAge(opts.OlderThan)
		if err != nil {
			return errorf("--older-than %q: %w", opts.OlderThan, err)
		}
		list, err := st.Sessions.List()
		if err != nil {
			return err
		}
		cutoff := opts.Now().Add(-age)
		for _, in := range list {
			if in.Updated.Before(cutoff) {
				keys = append(keys, in.Key)
			}
		}
		if len(keys) == 0 {
			fmt.Fprintf(opts.IO.Out, "No session is older than %s.\n", opts.OlderThan)
			return nil
		}
	}
	if err := confirm(opts.IO, opts.Force, fmt.Sprintf("Delete %d session(s) and their archives: %s?", len(keys), strings.Join(keys, ", "))); err != nil {
		return err
	}
	for _, k := range keys {
		// A turn of k running in another process ends first.
		unlock, err := st.Sessions.Lock(ctx, k)
		if err != nil {
			return err
		}
		err = st.Sessions.Remove(k)
		unlock()
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "Deleted %s.\n", k)
	}
	return nil
}

// sessionsNewOptions is what `sessions new` runs with.
type sessionsNewOptions struct {
	storedOptions
	Key   string
	Force bool
}

func newSessionsNewCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsNewOptions) error) *cobra.Command {
	opts := &sessionsNewOptions{storedOptions: stored(f)}
	cmd := &cobra.Command{
		Use:   "new <id>",
		Short: "Start a session afresh (its messages move to its history archive)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Key = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "do not ask for confirmation")
	return cmd
}

func runSessionsNew(ctx context.Context, opts *sessionsNewOptions) error {
	st, err := opts.Stored()
	if err != nil {
		return err
	}
	key := opts.Key
	if _, err := st.Sessions.Path(key); err != nil {
		return err
	}
	if err := confirm(opts.IO, opts.Force, fmt.Sprintf("Start %s afresh? Its messages move to its history archive and its model and personality reset.", key)); err != nil {
		return err
	}
	// Held so a turn running in another process cannot save the old
	// messages back over the reset.
	unlock, err := st.Sessions.Lock(ctx, key)
	if err != nil {
		return err
	}
	defer unlock()
	if err := st.Sessions.Reset(key); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Session %s starts afresh.\n", key)
	return nil
}

// errNoTerminal is returned by confirm when nobody can answer.
var errNoTerminal = errors.New("this changes stored sessions and there is no terminal to confirm on: pass --force to go ahead")

// confirm asks question on the terminal of s. Without one it fails at
// once rather than wait on input that will never come; a "no" is
// ExitError 1.
func confirm(s *cmdutil.Streams, force bool, question string) error {
	if force {
		return nil
	}
	if !cmdutil.IsTerminal(s.In) {
		return errNoTerminal
	}
	fmt.Fprintf(s.Err, "%s [y/N] ", question)
	line, err := bufio.NewReader(s.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return errorf("read answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return cmdutil.ExitError{Code: 1}
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

// sessionsExportOptions is what `sessions export` runs with.
type sessionsExportOptions struct {
	storedOptions
	Key string
	// Out is the directory the export is written into.
	Out string
}

func newSessionsExportCmd(f *cmdutil.Factory, runF func(context.Context, *sessionsExportOptions) error) *cobra.Command {
	opts := &sessionsExportOptions{storedOptions: stored(f)}
	cmd := &cobra.Command{
		Use:   "export <id>",
		Short: "Write a session as a Markdown transcript and a JSON manifest, for a bug report",
		Long: "Writes <id>.md and <id>.manifest.json (the colon in the id becomes an underscore) into\n" +
			"--out (default: the current directory; created with mode 0700 when missing). Both are redacted before they are written and\n" +
			"are byte-identical for an unchanged session. The session file is read, never repaired.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Key = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", ".", "directory to write the export into")
	return cmd
}

func runSessionsExport(_ context.Context, opts *sessionsExportOptions) error {
	st, err := opts.Stored()
	if err != nil {
		return err
	}
	if _, err := st.Sessions.Path(opts.Key); err != nil {
		return err
	}
	snap, err := readSession(st.Sessions, opts.Key)
	if err != nil {
		return err
	}
	path, _ := st.Sessions.Path(opts.Key)
	md, manifest, err := report.RenderExport(snap, filepath.Base(path))
	if err != nil {
		return err
	}
	base := strings.ReplaceAll(snap.Key, ":", "_")
	// A bug report often goes into a fresh directory: make it, private
	// like the files written into it.
	if err := os.MkdirAll(opts.Out, 0o700); err != nil {
		return errorf("export: --out %s: %w", opts.Out, err)
	}
	mdPath := filepath.Join(opts.Out, base+".md")
	manPath := filepath.Join(opts.Out, base+".manifest.json")
	if err := report.WritePrivate(mdPath, md); err != nil {
		return err
	}
	if err := report.WritePrivate(manPath, manifest); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Wrote %s and %s.\n", mdPath, manPath)
	return nil
}
