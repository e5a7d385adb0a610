package providers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
)

// CopilotTokenURL is where GitHub exchanges a GitHub OAuth token (from the
// device flow) for a short-lived GitHub Copilot API token.
const CopilotTokenURL = "https://api.github.com/copilot_internal/v2/token"

// CopilotTokens mints GitHub Copilot API tokens from a GitHub OAuth token
// and caches each until a minute before it expires. Its Token method is a
// [ClientOptions.Credential]. It is safe for concurrent use.
type CopilotTokens struct {
	// GitHubToken is the long-lived OAuth token the device flow produced.
	GitHubToken string
	// URL is the exchange endpoint; empty means [CopilotTokenURL].
	URL string
	// HTTPClient sends the exchange; nil means a client with a 30s timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Renew says, in the error of a refused exchange, how a person gets a
	// new GitHubToken (a program names its login command); empty means
	// "replace CopilotTokens.GitHubToken".
	Renew string

	mu      sync.Mutex
	token   string
	expires time.Time
}

// Token returns a Copilot API token, exchanging the GitHub token for a new
// one when the cached one is missing or about to expire.
func (c *CopilotTokens) Token(ctx context.Context) (string, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && now().Before(c.expires.Add(-time.Minute)) {
		return c.token, nil
	}
	url := c.URL
	if url == "" {
		url = CopilotTokenURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "token "+c.GitHubToken)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "joshbot-providers")
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := withCredentialRedirects(hc).Do(req)
	if err != nil {
		return "", errorf("github copilot token exchange: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", errorf("github copilot token exchange: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		renew := c.Renew
		if renew == "" {
			renew = "replace CopilotTokens.GitHubToken"
		}
		return "", errorf("github copilot token exchange: HTTP %d: %s, or check that the account has Copilot", resp.StatusCode, renew)
	}
	var out struct {
		Token     string `json:"token"`
		ExpiresAt int64  `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Token == "" {
		return "", errorf("github copilot token exchange: the answer holds no token")
	}
	c.token = out.Token
	c.expires = time.Unix(out.ExpiresAt, 0)
	if out.ExpiresAt == 0 {
		c.expires = now().Add(10 * time.Minute)
	}
	return c.token, nil
}
