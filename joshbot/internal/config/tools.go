package config

import (
	"net/url"
	"os"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/sandbox"
)

// Tools configures the dangerous tools: the shell and the web. The zero
// value is the safe default: no sandbox (so the shell runs allowlisted
// commands only), no approval prompts, DuckDuckGo for search.
type Tools struct {
	// ShellSandbox is "" or "off" (no sandbox) or "workspace" (confine
	// commands to the workspace and build caches). "workspace" on a system
	// without a sandbox is a startup error, never a silent downgrade.
	ShellSandbox string `json:"shell_sandbox,omitempty"`
	// ShellSandboxAllowNetwork lets sandboxed commands open outbound TCP
	// connections. False denies them.
	ShellSandboxAllowNetwork bool `json:"shell_sandbox_allow_network,omitempty"`
	// ShellApproval is "" or "off", "interactive" (ask, with an allow for
	// the rest of the session) or "always" (ask every time). Where no human
	// can be asked, commands are refused.
	ShellApproval string `json:"shell_approval,omitempty"`
	// ShellScreening is "" or "auto" (deny list inside the sandbox,
	// allowlist without one), "allowlist" or "denylist". "denylist" without
	// the sandbox is refused: the deny list alone is bypassable.
	ShellScreening string `json:"shell_screening,omitempty"`
	// ShellAllow replaces the allowlist of programs; empty means the
	// built-in list of read-only programs.
	ShellAllow []string `json:"shell_allow,omitempty"`
	// ShellDeny adds programs refused in every mode.
	ShellDeny []string `json:"shell_deny,omitempty"`
	// ShellEnv adds environment variables a command may inherit. Names
	// shaped like credentials are dropped regardless.
	ShellEnv []string `json:"shell_env,omitempty"`
	// ShellTimeout bounds one command; zero means 60s.
	ShellTimeout Duration `json:"shell_timeout,omitzero"`
	// Web configures web_fetch and web_search.
	Web Web `json:"web,omitzero"`
}

// Web configures the web tools.
type Web struct {
	// Backends orders the search backends, from "exa-cli" (an exa
	// executable on PATH), "exa-mcp" (Exa's tools on an MCP server), "exa"
	// (the Exa API, with a key) and "duckduckgo". Empty means each of them
	// that is available, in that order.
	Backends []string `json:"backends,omitempty"`
	// ExaAPIKeyEnv names the environment variable holding the Exa key.
	ExaAPIKeyEnv string `json:"exa_api_key_env,omitempty"`
	// ExaAPIKey is the Exa key itself; prefer ExaAPIKeyEnv.
	ExaAPIKey string `json:"exa_api_key,omitempty"`
	// ExaURL overrides the Exa API base URL.
	ExaURL string `json:"exa_url,omitempty"`
	// DuckDuckGoURL overrides the DuckDuckGo HTML endpoint.
	DuckDuckGoURL string `json:"duckduckgo_url,omitempty"`
	// SearchTimeout budgets web_search; zero means 25s.
	SearchTimeout Duration `json:"search_timeout,omitzero"`
	// CodeTimeout budgets web_code; zero means 20s.
	CodeTimeout Duration `json:"code_timeout,omitzero"`
	// CompanyTimeout budgets web_company; zero means 20s.
	CompanyTimeout Duration `json:"company_timeout,omitzero"`
	// ResearchTimeout budgets web_research; zero means 45s.
	ResearchTimeout Duration `json:"research_timeout,omitzero"`
	// FetchTimeout bounds one web_fetch, redirects included; zero means 30s.
	FetchTimeout Duration `json:"fetch_timeout,omitzero"`
	// FinishReserve is kept back from a turn for the reply; zero means 5s.
	FinishReserve Duration `json:"finish_reserve,omitzero"`
}

// SandboxEnabled reports whether tools.shell_sandbox asks for confinement.
func (t *Tools) SandboxEnabled() bool { return t.ShellSandbox == "workspace" }

// validate refuses tool settings that would fail later or fail open.
func (t *Tools) validate() error {
	switch t.ShellSandbox {
	case "", "off", "workspace":
	default:
		return errorf("tools.shell_sandbox is %q: use \"workspace\" or \"off\"", t.ShellSandbox)
	}
	switch t.ShellApproval {
	case "", "off", "interactive", "always":
	default:
		return errorf("tools.shell_approval is %q: use \"off\", \"interactive\" or \"always\"", t.ShellApproval)
	}
	switch t.ShellScreening {
	case "", "auto", "allowlist":
	case "denylist":
		if !t.SandboxEnabled() {
			return errorf("tools.shell_screening is \"denylist\" but tools.shell_sandbox is not \"workspace\": the deny list alone is bypassable, so turn the sandbox on or use \"allowlist\"")
		}
	default:
		return errorf("tools.shell_screening is %q: use \"auto\", \"allowlist\" or \"denylist\"", t.ShellScreening)
	}
	for _, n := range t.ShellAllow {
		if n == "" || strings.ContainsAny(n, "/ \t\n;&|$`'\"\\") {
			return errorf("tools.shell_allow entry %q is not a plain program name", n)
		}
	}
	for _, n := range t.ShellEnv {
		if n == "" || strings.ContainsAny(n, "= \t\n") {
			return errorf("tools.shell_env entry %q is not a variable name", n)
		}
		if sandbox.SecretName(n) {
			return errorf("tools.shell_env lists %s, which is named like a credential and is never passed to commands: remove it from tools.shell_env", n)
		}
	}
	if err := checkDuration("tools.shell_timeout", t.ShellTimeout); err != nil {
		return err
	}
	w := &t.Web
	for _, b := range w.Backends {
		if b != "exa-cli" && b != "exa-mcp" && b != "exa" && b != "duckduckgo" {
			return errorf("tools.web.backends has %q: use \"exa-cli\", \"exa-mcp\", \"exa\" and/or \"duckduckgo\"", b)
		}
	}
	if w.ExaAPIKey != "" && w.ExaAPIKeyEnv != "" {
		return errorf("tools.web sets both exa_api_key and exa_api_key_env: keep one")
	}
	for key, u := range map[string]string{"tools.web.exa_url": w.ExaURL, "tools.web.duckduckgo_url": w.DuckDuckGoURL} {
		if u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return errorf("%s %q is not an http(s) URL", key, u)
		}
	}
	for key, d := range map[string]Duration{
		"tools.web.search_timeout": w.SearchTimeout, "tools.web.code_timeout": w.CodeTimeout,
		"tools.web.company_timeout": w.CompanyTimeout, "tools.web.research_timeout": w.ResearchTimeout,
		"tools.web.finish_reserve": w.FinishReserve, "tools.web.fetch_timeout": w.FetchTimeout,
	} {
		if err := checkDuration(key, d); err != nil {
			return err
		}
	}
	return nil
}

// ExaKey returns the Exa API key, from exa_api_key_env or exa_api_key; ""
// means Exa is not configured. A named variable that is unset is an error
// naming it.
func (w *Web) ExaKey() (string, error) {
	if w.ExaAPIKeyEnv != "" {
		v := strings.TrimSpace(os.Getenv(w.ExaAPIKeyEnv))
		if v == "" {
			return "", errorf("tools.web.exa_api_key_env names %s, which is not set: export %s, or remove tools.web.exa_api_key_env", w.ExaAPIKeyEnv, w.ExaAPIKeyEnv)
		}
		redact.AddSecret(v)
		return v, nil
	}
	redact.AddSecret(strings.TrimSpace(w.ExaAPIKey))
	return strings.TrimSpace(w.ExaAPIKey), nil
}
