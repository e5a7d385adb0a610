package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/tools"
)

// MCPTrustFile is the MCP trust store's name inside the state directory.
const MCPTrustFile = "mcp.trust"

// startMCP connects the enabled servers and registers the tools of the
// trusted ones beside the built-ins. A server that fails is logged and
// skipped by the manager; the caller must Close the manager. The returned
// withdrawals take a server's tools out of reg, and of any registry later
// passed to its track, when the server is revoked or fails for good.
func startMCP(ctx context.Context, cfg *config.Config, home string, reg *tools.Registry, log *slog.Logger) (*mcpclient.Manager, *mcpWithdrawals, error) {
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
		Trust:      mcpclient.OpenTrustStore(filepath.Join(home, MCPTrustFile)),
		Logger:     log,
		OnWithdraw: w.withdraw,
		CallTimeoutSetting: func(server string) string {
			return "mcp.servers." + server + ".call_timeout"
		},
	})
	// Ctrl-C or SIGTERM while servers start (up to 15 s) stops them all
	// and reaps them, rather than killing joshbot under them.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := m.Start(ctx, decls); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("config mcp: %w", err)
	}
	if ctx.Err() != nil {
		m.Close()
		return nil, nil, errors.New("interrupted while starting the MCP servers")
	}
	w.register(m, reg)
	return m, w, nil
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
}

// track makes later withdrawals reach reg too, and takes out of it at once
// what was withdrawn before. A nil *mcpWithdrawals does nothing.
func (w *mcpWithdrawals) track(reg *tools.Registry) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, why := range w.gone {
		reg.Unregister(why, name)
	}
	w.regs = append(w.regs, reg)
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
