package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/docscheck"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/tools"
)

func newDocsCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Documentation checks",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newDocsCheckCmd(f, runDocsCheck))
	return cmd
}

// docsCheckOptions is what `docs check` runs with.
type docsCheckOptions struct {
	IO             *cmdutil.Streams
	RuntimeOptions func(profile string, o *runtime.Options) (*runtime.Options, error)
	Logger         func() *slog.Logger
	Now            func() time.Time

	// Root is --root, the source tree to check.
	Root string
	// Profile is --profile.
	Profile string
}

func newDocsCheckCmd(f *cmdutil.Factory, runF func(context.Context, *docsCheckOptions) error) *cobra.Command {
	opts := &docsCheckOptions{IO: f.IO, RuntimeOptions: f.RuntimeOptions, Logger: f.Logger, Now: f.Now}
	check := &cobra.Command{
		Use:   "check",
		Short: "Compare the code and config with README.md, docs/ and the skills; write a propose-only drift report",
		Long: "docs check runs a bounded subagent that can read (read_file, list_dir, glob, grep)\n" +
			"inside --root and, when tools.shell_sandbox confines commands, run read-only verification\n" +
			"commands there through the shell, each approved by you at the terminal (refused when\n" +
			"stdin or stderr is not a terminal, as under cron); a finding may cite such a command with\n" +
			"its real output. It compares what the code and config do with what README.md, docs/ and the\n" +
			"bundled skills say, and writes its findings to reports/doc-drift-<date>.md in the\n" +
			"workspace. It changes nothing else itself. A finding that cites neither a file that exists\n" +
			"under --root nor a command it ran is dropped before the report is written.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	check.Flags().StringVar(&opts.Root, "root", ".", "the source tree to check (its README.md, docs/, skills and code)")
	cmdutil.AddProfileFlag(check, &opts.Profile)
	return check
}

// docsCheck runs docscheck.Check with the configured model.
func runDocsCheck(ctx context.Context, opts *docsCheckOptions) error {
	root := opts.Root
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return errorf("--root %q: %w", root, err)
	}
	if fi, err := os.Stat(absRoot); err != nil || !fi.IsDir() {
		return errorf("--root %q is not a directory", root)
	}
	ro, err := opts.RuntimeOptions(opts.Profile, nil)
	if err != nil {
		return err
	}
	cfgPath, home := ro.ConfigPath, ro.Home
	cfg, err := ro.LoadConfig()
	if err != nil {
		return err
	}
	mc, err := cfg.ResolveModelConfig()
	if err != nil {
		return errorf("%w (config %s)", err, tildePath(cfgPath))
	}
	chain, err := ro.ProviderChain(mc)
	if err != nil {
		return err
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return err
	}
	primary := &mc.Models[0]
	check := &docscheck.Options{
		Root: absRoot, Workspace: ws,
		Provider: chain, ProviderName: primary.Provider, Model: primary.WireModel,
		Logger: opts.Logger(), Now: opts.Now,
	}
	// The checker may verify with the shell: confined to --root by the
	// sandbox tools.* configures, every command approved by the person at
	// the terminal. Unattended (cron, a pipe) every command is refused.
	shell, err := ro.NewShell(cfg, home, absRoot, tools.ApprovalAlways, true)
	if err != nil {
		fmt.Fprintf(opts.IO.Err, "docs check: no verification commands: %v\n", err)
	} else {
		defer shell.Close()
		check.Shell = shell
		check.Approver = oneShotApprover(opts.IO)
	}
	rep, err := docscheck.Check(ctx, check)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "%d findings (%d dropped for lack of evidence) written to %s\n", rep.Kept, rep.Dropped, tildePath(rep.Path))
	return nil
}
