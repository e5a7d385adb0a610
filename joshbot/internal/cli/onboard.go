package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/workspace"
	"github.com/joshbot/joshbot/sandbox"
)

// onboardOptions is what `joshbot onboard` runs with.
type onboardOptions struct {
	IO    *cmdutil.Streams
	Paths func() (cfgPath, home string, err error)
	Probe func() sandbox.Report
	// Preflight reports on the config written, for a person who answered
	// the questions.
	Preflight func(context.Context) error

	// Choices are the flags; what is left empty is detected or asked.
	Choices onboard.Choices
}

func newOnboard(f *cmdutil.Factory) *cobra.Command { return newOnboardCommand(f, runOnboard) }

// newOnboardCommand wires the onboard flags into onboardOptions and hands
// them to runF.
func newOnboardCommand(fa *cmdutil.Factory, runF func(context.Context, *onboardOptions) error) *cobra.Command {
	opts := &onboardOptions{IO: fa.IO, Paths: fa.Paths, Probe: fa.Probe,
		Preflight: func(ctx context.Context) error { return runPreflight(ctx, newPreflightOptions(fa)) }}
	f := &opts.Choices
	cmd := &cobra.Command{
		Use:   "onboard",
		Short: "Write a config and a starter workspace",
		Long: "onboard writes config.json (mode 0600) and a workspace of starter identity files.\n" +
			"It never overwrites an existing config or file.\n\n" +
			"Without flags it picks the provider from the first API key found in the environment\n" +
			"(" + strings.Join(onboard.KeyEnvs(), ", ") + "), else a local Ollama.\n" +
			"The config stores the variable's name, never the key itself.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runF(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Provider, "provider", "", "provider to use ("+strings.Join(onboard.KnownNames(), ", ")+")")
	fl.StringVar(&f.Model, "model", "", "model id (default: the provider's suggested model)")
	fl.StringVar(&f.APIBase, "api-base", "", "OpenAI-compatible base URL (required for --provider custom)")
	fl.StringVar(&f.APIKeyEnv, "api-key-env", "", "environment variable holding the API key")
	fl.StringVar(&f.OllamaURL, "ollama-url", "http://localhost:11434", "where to look for a local Ollama")
	fl.StringVar(&f.Sandbox, "shell-sandbox", "auto", "confine shell commands to the workspace: auto (when the system supports it), on or off")
	return cmd
}

func runOnboard(ctx context.Context, opts *onboardOptions) error {
	f, out, in := &opts.Choices, opts.IO.Out, opts.IO.In
	cfgPath, home, err := opts.Paths()
	if err != nil {
		return err
	}
	var cfg *config.Config
	interactive := false
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		// An existing config is the operator's: it is parsed only to find
		// the workspace, never rewritten, even when a credential it names
		// is missing from this shell.
		if cfg, err = config.Parse(cfgPath, data); err != nil {
			return errorf("%w\n(onboard leaves an existing config alone; fix it or move it away)", err)
		}
		fmt.Fprintf(out, "Config already exists at %s; left unchanged.\n", tildePath(cfgPath))
		if hint := onboard.SandboxHint(cfg, opts.Probe()); hint != "" {
			fmt.Fprintln(out, hint)
		}
	case errors.Is(err, fs.ErrNotExist):
		if interactive = f.Provider == "" && isTerminal(in) && isTerminal(out); interactive {
			if err := onboard.Ask(bufio.NewReader(in), out, onboard.ReadSecretFrom(in.(*os.File)), f); err != nil {
				return err
			}
		}
		cfg, err = onboard.NewConfig(ctx, f)
		if err != nil {
			return err
		}
		sandboxLine, err := onboard.ApplySandboxChoice(f.Sandbox, cfg, opts.Probe())
		if err != nil {
			return err
		}
		if err := config.Save(cfgPath, cfg); err != nil {
			return err
		}
		d := cfg.Agents.Defaults
		fmt.Fprintf(out, "Wrote %s: provider %s, model %s", tildePath(cfgPath), d.Provider, d.Model)
		if env := cfg.Providers[d.Provider].APIKeyEnv; env != "" {
			fmt.Fprintf(out, ", key read from $%s", env)
		}
		fmt.Fprintln(out, ".")
		fmt.Fprintln(out, sandboxLine)
	default:
		return errorf("read %s: %w", cfgPath, err)
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return err
	}
	created, err := workspace.Init(ws)
	if err != nil {
		return err
	}
	if len(created) > 0 {
		fmt.Fprintf(out, "Workspace %s: created %s.\n", tildePath(ws), strings.Join(created, ", "))
	} else {
		fmt.Fprintf(out, "Workspace %s is ready.\n", tildePath(ws))
	}
	fmt.Fprintln(out, `Next: joshbot agent -m "hello"   (or joshbot agent for a conversation)`)
	if interactive {
		// A person who answered questions gets preflight's verdict on
		// what they chose; scripts keep the output they parse today.
		fmt.Fprintln(out)
		return opts.Preflight(ctx)
	}
	return nil
}
