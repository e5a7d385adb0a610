package devicelogin

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

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
)

// CopilotClientID is the OAuth app GitHub Copilot's editor integrations
// sign in with; the device flow needs no secret.
const CopilotClientID = "Iv1.b507a08c87ecfe98"

// Options configures [Login] and [CopilotCredential]. A nil *Options
// means every default.
type Options struct {
	// GitHubURL is GitHub's address: a GitHub Enterprise host, or a test
	// server. "" means https://github.com.
	GitHubURL string
	// ClientID is the OAuth app to sign in as; "" means [CopilotClientID].
	ClientID string
	// Scope is the OAuth scope asked for; "" means "read:user".
	Scope string
	// HTTPClient makes the requests; nil means a client with a 30-second
	// timeout.
	HTTPClient *http.Client
	// Sleep waits between polls and returns early with ctx's error; nil
	// means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// CopilotTokenURL is where GitHub OAuth tokens are exchanged for
	// Copilot API tokens; "" means providers.CopilotTokenURL.
	CopilotTokenURL string
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.GitHubURL == "" {
		d.GitHubURL = "https://github.com"
	}
	if d.ClientID == "" {
		d.ClientID = CopilotClientID
	}
	if d.Scope == "" {
		d.Scope = "read:user"
	}
	if d.HTTPClient == nil {
		d.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if d.Sleep == nil {
		d.Sleep = sleepCtx
	}
	if d.CopilotTokenURL == "" {
		d.CopilotTokenURL = providers.CopilotTokenURL
	}
	return d
}

type deviceCode struct {
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	ExpiresIn       int    `json:"expires_in"`
	Interval        *int   `json:"interval"`
}

// flow is one run of the device flow.
type flow struct{ Options }

func (d *flow) post(ctx context.Context, path string, form url.Values, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(d.GitHubURL, "/")+path, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := d.HTTPClient.Do(req)
	if err != nil {
		return errorf("%s could not be reached: %w", d.GitHubURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return errorf("%s%s answered HTTP %d", d.GitHubURL, path, resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errorf("%s%s answered something that is not JSON", d.GitHubURL, path)
	}
	return nil
}

// Login runs the device flow and returns the GitHub access token. out
// gets the code and the address to enter it at.
func Login(ctx context.Context, out io.Writer, opts *Options) (string, error) {
	d := &flow{opts.withDefaults()}
	var dc deviceCode
	if err := d.post(ctx, "/login/device/code", url.Values{"client_id": {d.ClientID}, "scope": {d.Scope}}, &dc); err != nil {
		return "", errorf("start the device login: %w", err)
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
		if err := d.Sleep(ctx, interval); err != nil {
			return "", errors.New("the code expired before it was approved: run `joshbot auth login github-copilot` again")
		}
		var tok struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
			Interval    int    `json:"interval"`
		}
		form := url.Values{"client_id": {d.ClientID}, "device_code": {dc.DeviceCode}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}
		if err := d.post(ctx, "/login/oauth/access_token", form, &tok); err != nil {
			return "", errorf("poll the device login: %w", err)
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
			return "", errorf("the login failed: %s", tok.Error)
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

// StoreCopilotToken writes token into the config file at cfgPath as it is
// on disk (no environment overrides folded in) as
// providers.github_copilot.api_key, creating a config when there is none.
// The file is written 0600.
func StoreCopilotToken(cfgPath, token string) error {
	cfg := config.Defaults()
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		if cfg, err = config.Parse(cfgPath, data); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return errorf("read config: %w", err)
	}
	p := cfg.Providers["github_copilot"]
	p.APIKey, p.APIKeyEnv = token, ""
	cfg.Providers["github_copilot"] = p
	return config.Save(cfgPath, cfg)
}

// CopilotCredential returns, for github_copilot with a GitHub OAuth token
// (what [Login] returns and [StoreCopilotToken] keeps), a source of the
// short-lived Copilot API tokens that token mints; for anything else nil,
// so the key is sent as it is. Only opts.CopilotTokenURL is used.
func CopilotCredential(provider, key string, opts *Options) func(context.Context) (string, error) {
	if provider != "github_copilot" || !(strings.HasPrefix(key, "gh") || strings.HasPrefix(key, "github_pat_")) {
		return nil
	}
	url := providers.CopilotTokenURL
	if opts != nil && opts.CopilotTokenURL != "" {
		url = opts.CopilotTokenURL
	}
	return (&providers.CopilotTokens{GitHubToken: key, URL: url, Renew: "run `joshbot auth login github-copilot` again"}).Token
}
