package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// copilotClientID is the OAuth app GitHub Copilot's editor integrations
// sign in with; the device flow needs no secret.
const copilotClientID = "Iv1.b507a08c87ecfe98"

// deviceFlow is OAuth 2.0 device authorization (RFC 8628) against
// GitHub: ask for a code, show it, poll until the person approves.
type deviceFlow struct {
	client   *http.Client
	base     string // https://github.com, or a test server
	clientID string
	scope    string
	// sleep waits between polls; it returns early with ctx's error.
	sleep func(ctx context.Context, d time.Duration) error
}

type deviceCode struct {
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	ExpiresIn       int    `json:"expires_in"`
	Interval        *int   `json:"interval"`
}

func (d *deviceFlow) post(ctx context.Context, path string, form url.Values, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(d.base, "/")+path, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s could not be reached: %w", d.base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s%s answered HTTP %d", d.base, path, resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s%s answered something that is not JSON", d.base, path)
	}
	return nil
}

// login runs the flow and returns the access token. out gets the code and
// the address to enter it at.
func (d *deviceFlow) login(ctx context.Context, out io.Writer) (string, error) {
	var dc deviceCode
	if err := d.post(ctx, "/login/device/code", url.Values{"client_id": {d.clientID}, "scope": {d.scope}}, &dc); err != nil {
		return "", fmt.Errorf("start the device login: %w", err)
	}
	if dc.DeviceCode == "" || dc.UserCode == "" {
		return "", errors.New("start the device login: the answer has no device or user code")
	}
	fmt.Fprintf(out, "Open %s and enter the code %s\nWaiting for you to approve...\n", dc.VerificationURI, dc.UserCode)
	interval := 5 * time.Second
	if dc.Interval != nil {
		interval = time.Duration(*dc.Interval) * time.Second
	}
	expires := 15 * time.Minute
	if dc.ExpiresIn > 0 {
		expires = time.Duration(dc.ExpiresIn) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, expires)
	defer cancel()
	for {
		if err := d.sleep(ctx, interval); err != nil {
			return "", errors.New("the code expired before it was approved: run `joshbot auth login github-copilot` again")
		}
		var tok struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
			Interval    int    `json:"interval"`
		}
		form := url.Values{"client_id": {d.clientID}, "device_code": {dc.DeviceCode}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}
		if err := d.post(ctx, "/login/oauth/access_token", form, &tok); err != nil {
			return "", fmt.Errorf("poll the device login: %w", err)
		}
		switch tok.Error {
		case "":
			if tok.AccessToken == "" {
				return "", errors.New("the login answered with neither a token nor an error")
			}
			return tok.AccessToken, nil
		case "authorization_pending":
		case "slow_down":
			// RFC 8628: add five seconds, or take the server's figure.
			interval += 5 * time.Second
			if tok.Interval > 0 {
				interval = time.Duration(tok.Interval) * time.Second
			}
		case "expired_token":
			return "", errors.New("the code expired before it was approved: run `joshbot auth login github-copilot` again")
		case "access_denied":
			return "", errors.New("the login was declined on GitHub")
		default:
			return "", fmt.Errorf("the login failed: %s", tok.Error)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

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
			flow := &deviceFlow{client: &http.Client{Timeout: 30 * time.Second}, base: githubURL, clientID: copilotClientID, scope: "read:user", sleep: sleepCtx}
			if a.sleep != nil {
				flow.sleep = a.sleep
			}
			token, err := flow.login(cmd.Context(), a.stdout)
			if err != nil {
				return err
			}
			return a.storeCopilotToken(token)
		},
	}
	cmd.Flags().StringVar(&githubURL, "github-url", "https://github.com", "GitHub's address (a GitHub Enterprise host, or a test server)")
	return cmd
}

// storeCopilotToken writes the token into the config file as it is on
// disk (no environment overrides folded in), creating a config when there
// is none.
func (a *app) storeCopilotToken(token string) error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return err
	}
	cfg := config.Defaults()
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		if cfg, err = config.Parse(cfgPath, data); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("read config: %w", err)
	}
	p := cfg.Providers["github_copilot"]
	p.APIKey, p.APIKeyEnv = token, ""
	cfg.Providers["github_copilot"] = p
	if err := config.Save(cfgPath, cfg); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Signed in. The token is in %s as providers.github_copilot.api_key.\n", tildePath(cfgPath))
	return nil
}
