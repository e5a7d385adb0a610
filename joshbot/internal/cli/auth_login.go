package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/devicelogin"
)

// authLoginOptions is what `auth login` runs with.
type authLoginOptions struct {
	IO    *cmdutil.Streams
	Paths func() (cfgPath, home string, err error)
	Sleep func(ctx context.Context, d time.Duration) error

	// Provider is the argument: github-copilot (or github_copilot).
	Provider string
	// GitHubURL is --github-url.
	GitHubURL string
}

func newAuthLoginCmd(f *cmdutil.Factory, runF func(context.Context, *authLoginOptions) error) *cobra.Command {
	opts := &authLoginOptions{IO: f.IO, Paths: f.Paths, Sleep: f.Sleep}
	cmd := &cobra.Command{
		Use:   "login github-copilot",
		Short: "Sign in to GitHub Copilot with the device flow; the token is kept in the 0600 config",
		Long: "login github-copilot shows a code to enter on GitHub and waits for the approval, then stores\n" +
			"the token as providers.github_copilot.api_key in config.json (mode 0600). To talk to it,\n" +
			"set agents.defaults.provider to \"github_copilot\" in config.json, or add a profile whose\n" +
			"model is github_copilot/<model> and pass --profile NAME to agent, serve or gateway.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "github-copilot" && args[0] != "github_copilot" {
				return errorf("auth login %q: only github-copilot signs in this way; other providers take a key in config.json (api_key_env)", args[0])
			}
			opts.Provider = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.GitHubURL, "github-url", "https://github.com", "GitHub's address (a GitHub Enterprise host, or a test server)")
	return cmd
}

func runAuthLogin(ctx context.Context, opts *authLoginOptions) error {
	token, err := devicelogin.Login(ctx, opts.IO.Out, &devicelogin.Options{GitHubURL: opts.GitHubURL, Sleep: opts.Sleep})
	if err != nil {
		return err
	}
	cfgPath, _, err := opts.Paths()
	if err != nil {
		return err
	}
	if err := devicelogin.StoreCopilotToken(cfgPath, token); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Signed in. The token is in %s as providers.github_copilot.api_key.\n", tildePath(cfgPath))
	return nil
}
