package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/devicelogin"
)

func (a *app) authLoginCommand() *cobra.Command {
	var githubURL string
	cmd := &cobra.Command{
		Use:   "login github-copilot",
		Short: "Sign in to GitHub Copilot with the device flow; the token is kept in the 0600 config",
		Long: "login github-copilot shows a code to enter on GitHub and waits for the approval, then stores\n" +
			"the token as providers.github_copilot.api_key in config.json (mode 0600). Use\n" +
			"--provider github_copilot (or a profile) to talk to it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "github-copilot" && args[0] != "github_copilot" {
				return fmt.Errorf("auth login %q: only github-copilot signs in this way; other providers take a key in config.json (api_key_env)", args[0])
			}
			token, err := devicelogin.Login(cmd.Context(), a.stdout, &devicelogin.Options{GitHubURL: githubURL, Sleep: a.sleep})
			if err != nil {
				return err
			}
			cfgPath, _, err := a.paths()
			if err != nil {
				return err
			}
			if err := devicelogin.StoreCopilotToken(cfgPath, token); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Signed in. The token is in %s as providers.github_copilot.api_key.\n", tildePath(cfgPath))
			return nil
		},
	}
	cmd.Flags().StringVar(&githubURL, "github-url", "https://github.com", "GitHub's address (a GitHub Enterprise host, or a test server)")
	return cmd
}
