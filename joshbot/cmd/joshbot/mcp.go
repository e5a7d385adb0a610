package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/tools"
)

// trustFile is the trust store's name inside the state directory.
const trustFile = "mcp.trust"

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, trust and untrust the MCP servers declared in config.json",
		Long: "MCP servers are declared under \"mcp\": {\"servers\": {...}} in config.json. A declared\n" +
			"server's tools reach the model only after `joshbot mcp trust <name>`, which approves the\n" +
			"exact tools it advertises; if they change, the approval is revoked. Read `joshbot mcp list` first.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.mcpListCommand(), a.mcpTrustCommand(), a.mcpUntrustCommand())
	return cmd
}

func (a *app) mcpListCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start each declared server, show its state and the tools it advertises, then stop it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output %q: use text or json", output)
			}
			cfg, home, err := a.mcpConfig()
			if err != nil {
				return err
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			doc, err := inspectMCP(cmd.Context(), cfg, store, nil)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			writeMCPText(a.stdout, doc)
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}

func (a *app) mcpTrustCommand() *cobra.Command {
	var want string
	cmd := &cobra.Command{
		Use:   "trust <name>",
		Short: "Approve the tools a declared server advertises now, so they reach the model",
		Long: "Starts the server, reads the tools it advertises, and records a SHA-256 of them in\n" +
			"mcp.trust. Pass --sha256 with the hash `joshbot mcp list` showed to approve only what you read.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			cfg, home, err := a.mcpConfig()
			if err != nil {
				return err
			}
			if _, ok := cfg.MCP.Servers[name]; !ok {
				return fmt.Errorf("no MCP server %q in config: declared servers are %s", name, declared(cfg))
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			doc, err := inspectMCP(cmd.Context(), cfg, store, []string{name})
			if err != nil {
				return err
			}
			s := doc.Servers[0]
			if s.SHA256 == "" {
				return fmt.Errorf("mcp server %q did not answer, so there is nothing to approve: %s", name, s.Reason)
			}
			if want != "" && !strings.EqualFold(want, s.SHA256) {
				return fmt.Errorf("mcp server %q now advertises sha256 %s, not the %s you reviewed: run `joshbot mcp list` again", name, s.SHA256, want)
			}
			if err := store.Approve(name, s.SHA256); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Trusted %s: %d tools, manifest sha256 %s.\n", name, len(s.Tools), s.SHA256)
			for _, t := range s.Tools {
				fmt.Fprintf(a.stdout, "  %s\n", t.Name)
			}
			fmt.Fprintln(a.stdout, "Its tools are offered from the next start of joshbot; a change to them revokes this approval.")
			return nil
		},
	}
	cmd.Flags().StringVar(&want, "sha256", "", "approve only if the server advertises this manifest hash")
	return cmd
}

func (a *app) mcpUntrustCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw a server's approval",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, home, err := a.paths()
			if err != nil {
				return err
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			had, err := store.Remove(args[0])
			if err != nil {
				return err
			}
			if !had {
				fmt.Fprintf(a.stdout, "%s was not trusted.\n", args[0])
				return nil
			}
			fmt.Fprintf(a.stdout, "%s is no longer trusted; its tools are not offered from the next start of joshbot.\n", args[0])
			return nil
		},
	}
}

// mcpConfig loads the config for the mcp commands, which need no provider.
func (a *app) mcpConfig() (*config.Config, string, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, "", err
	}
	return cfg, home, nil
}

func declared(cfg *config.Config) string {
	names := cfg.MCP.Names()
	if len(names) == 0 {
		return "none (add them under \"mcp\": {\"servers\": {...}})"
	}
	return strings.Join(names, ", ")
}

// mcpDoc is the JSON document of `joshbot mcp list --output json`.
type mcpDoc struct {
	SchemaVersion int         `json:"schema_version"`
	TrustStore    string      `json:"trust_store"`
	Servers       []mcpServer `json:"servers"`
}

type mcpServer struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Command, Args or URL say what runs; env values are left out because
	// they may hold a server's credential.
	Command  string   `json:"command,omitempty"`
	Args     []string `json:"args,omitempty"`
	EnvNames []string `json:"env_names,omitempty"`
	URL      string   `json:"url,omitempty"`
	mcpclient.Status
}

// inspectMCP starts the named servers (all declared ones when only is
// empty; disabled ones only when named), reads their state and manifests,
// and stops them.
func inspectMCP(ctx context.Context, cfg *config.Config, store *mcpclient.TrustStore, only []string) (*mcpDoc, error) {
	names := only
	if len(names) == 0 {
		names = cfg.MCP.Names()
	}
	doc := &mcpDoc{SchemaVersion: 1, TrustStore: tildePath(store.Path()), Servers: []mcpServer{}}
	var decls []mcpclient.Server
	for _, n := range names {
		s := cfg.MCP.Servers[n]
		if s.IsEnabled() || len(only) > 0 {
			decls = append(decls, s.Server(n))
		}
	}
	// The manifests read here are cached, so the next agent, gateway or
	// serve offers a server approved meanwhile at once.
	m := mcpclient.NewManager(&mcpclient.Options{Trust: store, ManifestCache: filepath.Join(filepath.Dir(store.Path()), manifestCacheFile)})
	defer m.Close()
	if err := m.Start(ctx, decls); err != nil {
		return nil, err
	}
	got := map[string]mcpclient.Status{}
	for _, st := range m.Status() {
		got[st.Name] = st
	}
	for _, n := range names {
		s := cfg.MCP.Servers[n]
		row := mcpServer{Name: n, Enabled: s.IsEnabled(), Command: s.Command, Args: s.Args, URL: s.URL}
		for k := range s.Env {
			row.EnvNames = append(row.EnvNames, k)
		}
		if st, ok := got[n]; ok {
			row.Status = st
		} else {
			transport := "stdio"
			if s.URL != "" {
				transport = "http"
			}
			row.Status = mcpclient.Status{Name: n, Transport: transport, State: "disabled", Reason: fmt.Sprintf("mcp.servers.%s.enabled is false", n), Tools: []mcpclient.ToolStatus{}}
		}
		slices.Sort(row.EnvNames)
		doc.Servers = append(doc.Servers, row)
	}
	return doc, nil
}

// writeMCPText renders the list for a person. Server-supplied text is
// stripped of control characters first, so a description cannot drive the
// operator's terminal.
func writeMCPText(w io.Writer, doc *mcpDoc) {
	if len(doc.Servers) == 0 {
		fmt.Fprintln(w, "No MCP servers are declared. Add them under \"mcp\": {\"servers\": {\"<name>\": {\"command\": ...}}} in config.json.")
		return
	}
	for i, s := range doc.Servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		what := s.URL
		if what == "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		fmt.Fprintf(w, "%s: %s (%s: %s)\n", s.Name, s.State, s.Transport, what)
		if s.Reason != "" {
			fmt.Fprintf(w, "  %s\n", displayable(s.Reason))
		}
		if s.Restarts > 0 || s.LastError != "" {
			fmt.Fprintf(w, "  restarts: %d of %d in the window; last error: %s\n", s.Restarts, s.RestartBudget, displayable(s.LastError))
		}
		if !s.RetryAt.IsZero() {
			fmt.Fprintf(w, "  down until %s (restart budget used up)\n", s.RetryAt.Local().Format(time.DateTime))
		}
		if s.SHA256 != "" {
			fmt.Fprintf(w, "  manifest sha256 %s\n", s.SHA256)
		}
		if s.ApprovedSHA256 != "" {
			fmt.Fprintf(w, "  approved sha256 %s\n", s.ApprovedSHA256)
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(w, "  tools (%d):\n", len(s.Tools))
		}
		for _, t := range s.Tools {
			fmt.Fprintf(w, "    %s\n", t.Name)
			if t.Skipped != "" {
				fmt.Fprintf(w, "      not offered: %s\n", displayable(t.Skipped))
			}
			fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(displayable(t.Description), "\n", "\n      "))
			fmt.Fprintf(w, "      input: %s\n", displayable(string(t.InputSchema)))
		}
	}
	fmt.Fprintf(w, "\nApprovals are kept in %s. Approve a server with `joshbot mcp trust <name>`.\n", doc.TrustStore)
}

// displayable replaces control characters other than newline and tab.
func displayable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// startMCP launches the enabled servers in the background and registers
// the tools of the trusted ones beside the built-ins: at once for a server
// whose trusted manifest is cached (manifestCacheFile), when it comes up
// for the others. No turn waits for a handshake, and a call waits only for
// the server it calls. A server that fails is logged and skipped by the
// manager; the caller must Close the manager. The returned withdrawals take
// a server's tools out of reg, and of any registry later passed to its
// track, when the server is revoked or fails for good.
func startMCP(cfg *config.Config, home string, reg *tools.Registry, log *slog.Logger) (*mcpclient.Manager, *mcpWithdrawals, error) {
	var decls []mcpclient.Server
	for _, n := range cfg.MCP.Names() {
		if s := cfg.MCP.Servers[n]; s.IsEnabled() {
			decls = append(decls, s.Server(n))
		}
	}
	if len(decls) == 0 {
		return nil, nil, nil
	}
	w := &mcpWithdrawals{log: log, gone: map[string]string{}}
	m := mcpclient.NewManager(&mcpclient.Options{
		Trust:         mcpclient.OpenTrustStore(filepath.Join(home, trustFile)),
		ManifestCache: filepath.Join(home, manifestCacheFile),
		Logger:        log,
		OnWithdraw:    w.withdraw,
		OnReady:       w.ready,
		CallTimeoutSetting: func(server string) string {
			return "mcp.servers." + server + ".call_timeout"
		},
	})
	if err := m.Launch(decls); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("config mcp: %w", err)
	}
	w.register(m, reg)
	return m, w, nil
}

// manifestCacheFile, in the home, holds each MCP server's manifest from its
// last trusted connection, so its tools are offered before it is up.
const manifestCacheFile = "mcp_manifests.json"

// ready is the manager's [mcpclient.Options.OnReady]: the tools of a server
// that came up after launch join every tracked registry.
func (w *mcpWithdrawals) ready(server string, ts []*mcpclient.Tool) {
	list := make([]tools.Tool, len(ts))
	for i, t := range ts {
		list[i] = t
	}
	w.add(server, list)
}

// add registers server's tools in every tracked registry that lacks them,
// wrapped as that registry wraps its tools, except those withdrawn.
func (w *mcpWithdrawals) add(server string, ts []tools.Tool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, reg := range w.regs {
		fresh := tools.NewRegistry()
		for _, t := range ts {
			if _, gone := w.gone[t.Name()]; gone {
				continue
			}
			if _, ok := reg.Get(t.Name()); ok {
				continue // registered from Tools() already
			}
			if err := fresh.Register(t); err != nil {
				w.log.Warn("mcp tool not registered", "tool", t.Name(), "err", err)
			}
		}
		if fresh.Len() == 0 {
			continue
		}
		if wrap := w.wraps[i]; wrap != nil {
			var err error
			if fresh, err = wrap(fresh); err != nil {
				w.log.Warn("mcp tools not registered", "mcp_server", server, "err", err)
				continue
			}
		}
		for _, name := range fresh.Names() {
			t, _ := fresh.Get(name)
			if err := reg.Register(t); err != nil {
				w.log.Warn("mcp tool not registered", "tool", name, "err", err)
			}
		}
	}
	w.log.Info("mcp server up; its tools are offered", "mcp_server", server, "tools", len(ts))
}

// mcpWithdrawals takes the tools of an MCP server that was revoked or failed
// for good out of every registry they reached, so the model stops being
// offered tools that can only fail. A call that names one anyway gets the
// registry's "no longer available" error with the reason and the commands
// that bring it back. It is safe for concurrent use.
type mcpWithdrawals struct {
	log *slog.Logger

	mu   sync.Mutex
	regs []*tools.Registry
	// wraps[i] is how regs[i] wraps its tools (serve's and the gateway's
	// progress reports); nil for none. Tools of a server that comes up
	// late are wrapped the same way.
	wraps []toolWrapper
	// gone holds each withdrawn tool's reason, for registries tracked after
	// the withdrawal (the copy serve and gateway wrap for progress).
	gone map[string]string
}

// register registers the tools of m's trusted servers on reg and tracks
// reg. Holding mu across both means a withdrawal that lands meanwhile
// either keeps its server's tools out of m.Tools or waits and removes them.
func (w *mcpWithdrawals) register(m *mcpclient.Manager, reg *tools.Registry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range m.Tools() {
		if _, gone := w.gone[t.Name()]; gone {
			continue
		}
		if err := reg.Register(t); err != nil {
			// Only a duplicate can land here; refusing it is what keeps a
			// server from shadowing a tool already registered.
			w.log.Warn("mcp tool not registered", "tool", t.Name(), "err", err)
		}
	}
	w.regs = append(w.regs, reg)
	w.wraps = append(w.wraps, nil)
}

// track makes later withdrawals reach reg too, and takes out of it at once
// what was withdrawn before; tools of servers that come up later join it
// wrapped by wrap (nil: as they are). A nil *mcpWithdrawals does nothing.
func (w *mcpWithdrawals) track(reg *tools.Registry, wrap toolWrapper) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, why := range w.gone {
		reg.Unregister(why, name)
	}
	w.regs = append(w.regs, reg)
	w.wraps = append(w.wraps, wrap)
}

// withdraw is the manager's [mcpclient.Options.OnWithdraw].
func (w *mcpWithdrawals) withdraw(wd mcpclient.Withdrawal) {
	why := mcpclient.RevokedMessage(wd.Server)
	if wd.State != mcpclient.StateRevoked {
		why = fmt.Sprintf("mcp server %q %s: %s", wd.Server, wd.State, mcpclient.Defang(wd.Reason))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range wd.Tools {
		w.gone[name] = why
	}
	for _, reg := range w.regs {
		reg.Unregister(why, wd.Tools...)
	}
	w.log.Warn("mcp server's tools withdrawn: the model is no longer offered them", "mcp_server", wd.Server, "state", wd.State, "tools", len(wd.Tools), "reason", wd.Reason)
}
