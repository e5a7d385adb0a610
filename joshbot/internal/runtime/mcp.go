package runtime

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/tools"
)

// MCPTrustFile is the MCP trust store's name inside the state directory.
const MCPTrustFile = "mcp.trust"

// startMCP launches the enabled servers in the background and registers
// the tools of the trusted ones beside the built-ins: at once for a server
// whose trusted manifest is cached (ManifestCacheFile), when it comes up
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
		Trust:         mcpclient.OpenTrustStore(filepath.Join(home, MCPTrustFile)),
		ManifestCache: filepath.Join(home, ManifestCacheFile),
		Logger:        log,
		OnWithdraw:    w.withdraw,
		OnReady:       w.ready,
		CallTimeoutSetting: func(server string) string {
			return "mcp.servers." + server + ".call_timeout"
		},
	})
	if err := m.Launch(decls); err != nil {
		m.Close()
		return nil, nil, errorf("config mcp: %w", err)
	}
	w.register(m, reg)
	return m, w, nil
}

// ManifestCacheFile, in the home, holds each MCP server's manifest from
// its last trusted connection, so its tools are offered before it is up.
const ManifestCacheFile = "mcp_manifests.json"

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
	wraps []func(*tools.Registry) (*tools.Registry, error)
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
func (w *mcpWithdrawals) track(reg *tools.Registry, wrap func(*tools.Registry) (*tools.Registry, error)) {
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
