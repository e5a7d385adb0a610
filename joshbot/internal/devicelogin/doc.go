// Package devicelogin signs in to GitHub Copilot with the OAuth 2.0 device
// authorization flow (RFC 8628): ask GitHub for a code, show it, poll
// until the person approves, and keep the token in the config file. It is
// the feature behind `joshbot auth login github-copilot`.
//
//	token, err := devicelogin.Login(ctx, os.Stdout, nil)
//	if err == nil {
//		err = devicelogin.StoreCopilotToken(cfgPath, token)
//	}
//
// At run time [CopilotCredential] turns the stored GitHub token into the
// short-lived Copilot API tokens the provider is called with. Every
// address and the clock are [Options] fields, so tests point them at fakes.
package devicelogin
