package cmdutil

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	jterm "github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/sandbox"
)

// Streams are the standard streams a command runs with, and the format
// (--output) its report is written in.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// Format is --output; the root command parses it before any command
	// runs.
	Format output.Format
}

// Factory is a command's one way to the rest of the binary. Its parts are
// functions because what they return depends on the global flags
// (--config, --log-level), which are parsed after the command tree is
// built.
type Factory struct {
	// IO is the process's streams.
	IO *Streams
	// Paths returns the config file and the state directory beside it.
	Paths func() (cfgPath, home string, err error)
	// LoadConfig loads the config at cfgPath strictly, with profile
	// applied ("" means default_profile, else none).
	LoadConfig func(cfgPath, profile string) (*config.Config, error)
	// RuntimeOptions returns o (nil: the defaults) completed with the
	// config, profile, logger, the provider health the process shares and
	// the test seams: what [Factory.LoadRuntime] loads with.
	RuntimeOptions func(profile string, o *runtime.Options) (*runtime.Options, error)
	// LoadStored opens the stored sessions and memory of the home.
	LoadStored func() (*runtime.Stored, error)
	// Logger returns the process's logger (set up once --log-level is
	// parsed).
	Logger func() *slog.Logger
	// Now is the clock of dated outputs.
	Now func() time.Time
	// Sleep waits between polls; nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Probe reports what this system can confine (sandbox.Probe).
	Probe func() sandbox.Report
	// RawTerm is set while the line editor holds the terminal raw, so log
	// lines end in CRLF meanwhile.
	RawTerm *atomic.Bool
	// Above is shared by the log's writer and the line editor, so a line
	// logged while the person types goes above the prompt.
	Above *jterm.Above
}

// LoadRuntime loads the runtime of the configured home with o's choices
// (nil: the defaults) and profile.
func (f *Factory) LoadRuntime(ctx context.Context, profile string, o *runtime.Options) (*runtime.Runtime, error) {
	opts, err := f.RuntimeOptions(profile, o)
	if err != nil {
		return nil, err
	}
	return runtime.Load(ctx, opts)
}

// Home returns the state directory alone.
func (f *Factory) Home() (string, error) {
	_, home, err := f.Paths()
	return home, err
}

// ExitError carries a process exit code out of a command whose failure
// has already been reported.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Fail reports err the way format asks: in JSON as an error document on
// s.Out (the one stream a JSON consumer reads), in text as usual.
func Fail(s *Streams, format output.Format, err error) error {
	if format == output.JSON {
		if werr := output.WriteError(s.Out, output.JSON, 1, err); werr != nil {
			return werr
		}
		return ExitError{Code: 1}
	}
	return err
}

// IsTerminal reports whether v is a terminal.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// TildePath shows p with the user's home directory as ~.
func TildePath(p string) string { return jterm.TildePath(p) }

// TildeIn shows the config path in msg with the home directory as ~.
func TildeIn(msg, cfgPath string) string {
	return strings.ReplaceAll(msg, cfgPath, TildePath(cfgPath))
}

// AddProfileFlag gives cmd the --profile flag into p. Every command that
// loads the config to run takes it, and the Factory's loaders apply it,
// so the selection rule lives in one place.
func AddProfileFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "profile", "", "use the named profile from the config's profiles block (default: default_profile, else none)")
}
