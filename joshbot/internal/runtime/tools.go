package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// registerShellAndWeb adds the shell, web_fetch and web_search tools as
// tools.* configures them. It fails closed: tools.shell_sandbox
// "workspace" on a system that cannot confine commands is an error here,
// at startup, never a shell that quietly runs unconfined.
//
// The returned closeJobs kills the shell's background jobs; call it before
// the program exits.
//
// mcp is where the Exa MCP search leg finds Exa's tools once the MCP
// servers are launched (after this, as their tools register here too).
func (o *Options) registerShellAndWeb(reg *tools.Registry, cfg *config.Config, home, ws string, mcp *mcpSearchTools) (closeJobs func(), err error) {
	tc := &cfg.Tools
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	approval, err := tools.ParseApprovalMode(tc.ShellApproval)
	if err != nil {
		return nil, fmt.Errorf("tools.shell_approval: %w", err)
	}
	shell, err := o.newShell(cfg, home, realWS, approval)
	if err != nil {
		return nil, err
	}
	if err := reg.Register(shellKeys{shell}); err != nil {
		return nil, fmt.Errorf("shell tool: %w", err)
	}
	closeJobs = func() { shell.Close() }

	if err := reg.Register(tools.NewWebFetch(&tools.WebFetchOptions{Timeout: tc.Web.FetchTimeout.Std()})); err != nil {
		return nil, fmt.Errorf("web_fetch: %w", err)
	}
	backends, err := searchBackends(&tc.Web, mcp, anyMCPEnabled(cfg), onPath)
	if err != nil {
		return nil, err
	}
	w := &tc.Web
	return closeJobs, tools.RegisterWebSearch(reg, &tools.WebSearchOptions{
		Backends:        backends,
		SearchTimeout:   w.SearchTimeout.Std(),
		CodeTimeout:     w.CodeTimeout.Std(),
		CompanyTimeout:  w.CompanyTimeout.Std(),
		ResearchTimeout: w.ResearchTimeout.Std(),
		FinishReserve:   w.FinishReserve.Std(),
	})
}

// NewShell returns a shell tool confined and screened as tools.* in cfg
// configures the agent's own (tools.shell_sandbox, shell_screening,
// shell_allow, shell_deny, shell_timeout, shell_env), run in dir (which
// must exist) with approval instead of tools.shell_approval. A command
// of the shell may write only inside dir. It fails when cfg turns the
// sandbox off and sandboxed is true, so a caller that promised
// confinement never gets an unconfined shell. Close the shell when done.
func (o *Options) NewShell(cfg *config.Config, home, dir string, approval tools.ApprovalMode, sandboxed bool) (*tools.Shell, error) {
	if sandboxed && !cfg.Tools.SandboxEnabled() {
		return nil, errors.New("tools.shell_sandbox is \"off\", so no confined shell can be made; set it to \"workspace\"")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	return o.withDefaults().newShell(cfg, home, real, approval)
}

// newShell builds the shell tool for realDir as tools.* configures it.
func (o *Options) newShell(cfg *config.Config, home, realDir string, approval tools.ApprovalMode) (*tools.Shell, error) {
	tc := &cfg.Tools
	var sb *sandbox.Sandbox
	var err error
	if tc.SandboxEnabled() {
		sb, err = o.NewSandbox(&sandbox.Policy{
			Workspace: realDir,
			// The sandbox's own build caches: never the user's real
			// ~/.cache or Go module cache.
			CacheDir:     filepath.Join(home, "cache", "sandbox"),
			AllowNetwork: tc.ShellSandboxAllowNetwork,
		}, sandboxOptions(home, executable(), helperBuildID))
		if errors.Is(err, sandbox.ErrNetworkUndeniable) {
			return nil, errors.New("tools.shell_sandbox is \"workspace\", but this system's sandbox cannot deny network access (Landlock ABI 4 or later is needed); " +
				"set tools.shell_sandbox_allow_network to true to accept that, or tools.shell_sandbox to \"off\" to run only allowlisted commands, unconfined")
		}
		if err != nil {
			return nil, fmt.Errorf("tools.shell_sandbox is \"workspace\", but %w; set tools.shell_sandbox to \"off\" to run only allowlisted commands, unconfined", err)
		}
	}
	mode := sandbox.ScreenAllowlist
	switch tc.ShellScreening {
	case "denylist":
		mode = sandbox.ScreenDenylist
	case "", "auto":
		if sb != nil {
			mode = sandbox.ScreenDenylist
		}
	}
	scr, err := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: mode, Allow: tc.ShellAllow, Deny: tc.ShellDeny, Workspace: realDir})
	if err != nil {
		return nil, fmt.Errorf("tools.shell_allow: %w", err)
	}
	shell, err := tools.NewShell(&tools.ShellOptions{
		Workspace: realDir,
		Sandbox:   sb,
		Screen:    scr,
		Approval:  approval,
		Timeout:   tc.ShellTimeout.Std(),
		EnvAllow:  tc.ShellEnv,
		Prestart:  o.Prestart,
	})
	if err != nil {
		return nil, fmt.Errorf("shell tool: %w", err)
	}
	if o.Logger != nil {
		o.Logger.Debug("shell tool", "dir", realDir, "sandboxed", sb != nil, "screening", map[sandbox.ScreenMode]string{sandbox.ScreenAllowlist: "allowlist", sandbox.ScreenDenylist: "denylist"}[mode], "approval", approval)
	}
	return shell, nil
}

// anyMCPEnabled reports whether cfg enables at least one MCP server.
func anyMCPEnabled(cfg *config.Config) bool {
	return slices.ContainsFunc(cfg.MCP.Names(), func(n string) bool { return cfg.MCP.Servers[n].IsEnabled() })
}

// searchBackends builds the backends in the configured order. By default
// the chain is exa-cli (when an exa executable is on PATH at start), Exa
// over MCP (when an MCP server is enabled), the Exa API (when it has a
// key), then the keyless DuckDuckGo. onPath tells whether a command is
// installed (see onPath).
func searchBackends(w *config.Web, mcp *mcpSearchTools, mcpEnabled bool, onPath func(string) bool) ([]tools.SearchBackend, error) {
	key, err := w.ExaKey()
	if err != nil {
		return nil, err
	}
	order := w.Backends
	if len(order) == 0 {
		order = []string{"exa-cli", "exa-mcp", "exa", "duckduckgo"}
		if !onPath("exa") {
			order = order[1:]
		}
		if !mcpEnabled {
			order = slices.DeleteFunc(order, func(n string) bool { return n == "exa-mcp" })
		}
	}
	client := searchHTTPClient()
	var out []tools.SearchBackend
	for _, name := range order {
		switch name {
		case "exa-cli":
			out = append(out, tools.NewExaCLI(&tools.ExaCLIOptions{APIKey: key}))
		case "exa-mcp":
			out = append(out, tools.NewExaMCP(mcp))
		case "exa":
			if key == "" {
				if len(w.Backends) > 0 {
					return nil, fmt.Errorf("tools.web.backends lists exa, but no key is configured: set tools.web.exa_api_key_env")
				}
				continue
			}
			b, err := tools.NewExa(&tools.ExaOptions{APIKey: key, URL: w.ExaURL, Client: client})
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		case "duckduckgo":
			out = append(out, tools.NewDuckDuckGo(&tools.DuckDuckGoOptions{URL: w.DuckDuckGoURL, Client: client}))
		}
	}
	return out, nil
}

// mcpSearchTools is the Exa MCP leg's view of the MCP manager, which is
// started after the search tools are registered: until set, and for a
// server that is down, it offers nothing.
type mcpSearchTools struct {
	m atomic.Pointer[mcpclient.Manager]
}

// MCPTool returns the tool a connected server offers as remote.
func (s *mcpSearchTools) MCPTool(remote string) (tools.Tool, bool) {
	m := s.m.Load()
	if m == nil {
		return nil, false
	}
	for _, t := range m.Tools() {
		if strings.HasSuffix(t.Name(), "__"+remote) {
			return t, true
		}
	}
	return nil, false
}

func searchHTTPClient() *http.Client { return &http.Client{Timeout: 60 * time.Second} }

// shellKeys names joshbot's config keys in the shell tool's refusals, which
// the sandbox and tools modules word in terms of their own APIs.
type shellKeys struct{ *tools.Shell }

// Execute runs the shell tool and rewords a refusal that a config key
// would change.
func (s shellKeys) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	out, err := s.Shell.Execute(ctx, args)
	var na *sandbox.NotAllowedError
	switch {
	case errors.As(err, &na) && na.Via != "":
		err = fmt.Errorf("%s: %w: %q (run through %q) is not on the allowlist (tools.shell_allow)", s.Name(), sandbox.ErrRefused, na.Program, na.Via)
	case errors.As(err, &na):
		err = fmt.Errorf("%s: %w: %q is not on the allowlist (tools.shell_allow)", s.Name(), sandbox.ErrRefused, na.Program)
	case errors.Is(err, sandbox.ErrNoApprover):
		err = fmt.Errorf("%s: not run: %w; tools.shell_approval requires a human to approve each command", s.Name(), sandbox.ErrNoApprover)
	}
	return out, err
}

// onPath reports whether the command name is found on $PATH.
func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
