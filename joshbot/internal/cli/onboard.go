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

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/workspace"
	"github.com/joshbot/joshbot/sandbox"
)

func (a *app) onboardCommand() *cobra.Command { return a.newOnboardCommand(a.onboard) }

// newOnboardCommand wires the onboard flags into onboard.Choices and hands
// them to runF.
func (a *app) newOnboardCommand(runF func(context.Context, *onboard.Choices) error) *cobra.Command {
	var f onboard.Choices
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
			return runF(cmd.Context(), &f)
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

func (a *app) onboard(ctx context.Context, f *onboard.Choices) error {
	cfgPath, home, err := a.paths()
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
			return fmt.Errorf("%w\n(onboard leaves an existing config alone; fix it or move it away)", err)
		}
		fmt.Fprintf(a.stdout, "Config already exists at %s; left unchanged.\n", tildePath(cfgPath))
		if hint := onboard.SandboxHint(cfg, a.probeSandbox()); hint != "" {
			fmt.Fprintln(a.stdout, hint)
		}
	case errors.Is(err, fs.ErrNotExist):
		if interactive = f.Provider == "" && isTerminal(a.stdin) && isTerminal(a.stdout); interactive {
			if err := onboard.Ask(bufio.NewReader(a.stdin), a.stdout, onboard.ReadSecretFrom(a.stdin.(*os.File)), f); err != nil {
				return err
			}
		}
		cfg, err = onboard.NewConfig(ctx, f)
		if err != nil {
			return err
		}
		sandboxLine, err := onboard.ApplySandboxChoice(f.Sandbox, cfg, a.probeSandbox())
		if err != nil {
			return err
		}
		if err := config.Save(cfgPath, cfg); err != nil {
			return err
		}
		d := cfg.Agents.Defaults
		fmt.Fprintf(a.stdout, "Wrote %s: provider %s, model %s", tildePath(cfgPath), d.Provider, d.Model)
		if env := cfg.Providers[d.Provider].APIKeyEnv; env != "" {
			fmt.Fprintf(a.stdout, ", key read from $%s", env)
		}
		fmt.Fprintln(a.stdout, ".")
		fmt.Fprintln(a.stdout, sandboxLine)
	default:
		return fmt.Errorf("read %s: %w", cfgPath, err)
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
		fmt.Fprintf(a.stdout, "Workspace %s: created %s.\n", tildePath(ws), strings.Join(created, ", "))
	} else {
		fmt.Fprintf(a.stdout, "Workspace %s is ready.\n", tildePath(ws))
	}
	fmt.Fprintln(a.stdout, `Next: joshbot agent -m "hello"   (or joshbot agent for a conversation)`)
	if interactive {
		// A person who answered questions gets preflight's verdict on
		// what they chose; scripts keep the output they parse today.
		fmt.Fprintln(a.stdout)
		return a.preflight()
	}
	return nil
}

// probeSandbox reports what this system can confine: sandbox.Probe, or
// the app's probe when a test plays a system with or without a sandbox.
func (a *app) probeSandbox() sandbox.Report {
	if a.probe != nil {
		return a.probe()
	}
	return sandbox.Probe()
}
