package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/providers"
)

// HealthFile is where a running gateway or API server leaves its provider
// health table, so `joshbot status` in another process can show failures
// and cooldowns.
const HealthFile = "provider_health.json"

// healthEvery is how often the table is checked for changes.
const healthEvery = 5 * time.Second

// HealthDoc is the health file: the provider health and the MCP servers'
// running state a daemon last recorded.
type HealthDoc struct {
	Providers []output.ProviderHealth `json:"providers"`
	// MCPServers are the process's MCP servers as it last saw them (state,
	// restarts, last error); only the running-state fields are set.
	MCPServers []output.MCPServerStatus `json:"mcp_servers,omitempty"`
}

// mcpEntries is the running state of m's servers, for the health file.
func mcpEntries(m *mcpclient.Manager) []output.MCPServerStatus {
	if m == nil {
		return nil
	}
	var out []output.MCPServerStatus
	for _, st := range m.Status() {
		e := output.MCPServerStatus{Name: st.Name, State: string(st.State), Restarts: st.Restarts, RestartBudget: st.RestartBudget, LastError: redact.String(st.LastError)}
		if !st.RetryAt.IsZero() {
			e.RetryAt = st.RetryAt.UTC().Truncate(time.Second).Format(time.RFC3339)
		}
		out = append(out, e)
	}
	return out
}

// healthEntries converts a snapshot taken at now into report entries with
// absolute cooldown ends, which stay true after the file is written.
func healthEntries(snap []providers.ProviderHealth, now time.Time) []output.ProviderHealth {
	out := []output.ProviderHealth{}
	for _, h := range snap {
		e := output.ProviderHealth{Provider: h.Provider, Failures: h.ConsecutiveFailures, LastError: redact.String(h.LastError)}
		if h.Cooldown > 0 {
			e.CoolingUntil = now.Add(h.Cooldown).UTC().Truncate(time.Second).Format(time.RFC3339)
		}
		if e.Failures > 0 || e.CoolingUntil != "" {
			out = append(out, e)
		}
	}
	return out
}

// persistHealth writes the process's provider health to the home whenever
// it changes, until ctx ends. Write failures are logged once per change.
func (rt *Runtime) persistHealth(ctx context.Context, home string, tick <-chan time.Time) {
	w := rt.newHealthWriter(home, time.Now)
	w.tick()
	for {
		select {
		case <-ctx.Done():
			w.force()
			return
		case <-tick:
			w.tick()
		}
	}
}

// healthWriter keeps the health file in step with the process's tables.
// Its tick is what an idle daemon runs every few seconds, so when nothing
// can have changed it costs two loads and a comparison: the provider
// table's change count has not moved, no cooldown written in the file has
// ended, and there are no MCP servers (whose state has no such count).
type healthWriter struct {
	rt      *Runtime
	home    string
	now     func() time.Time
	last    HealthDoc
	written bool
	seen    uint64    // the table's change count at the last snapshot
	cooling time.Time // the earliest cooldown end in last; zero for none
}

func (rt *Runtime) newHealthWriter(home string, now func() time.Time) *healthWriter {
	return &healthWriter{rt: rt, home: home, now: now}
}

// tick rewrites the file if the tables may have changed since the last.
func (w *healthWriter) tick() {
	if w.written && w.rt.MCP == nil && w.rt.Health.Changes() == w.seen &&
		(w.cooling.IsZero() || w.now().Before(w.cooling)) {
		return
	}
	w.force()
}

// force compares the tables with the file's last content and rewrites it
// when they differ.
func (w *healthWriter) force() {
	seen := w.rt.Health.Changes() // before the snapshot: a later change is seen next tick
	now := w.now()
	snap := w.rt.Health.Snapshot()
	cur := HealthDoc{Providers: healthEntries(snap, now), MCPServers: mcpEntries(w.rt.MCP)}
	w.seen = seen
	w.cooling = time.Time{}
	for _, h := range snap {
		if until := now.Add(h.Cooldown); h.Cooldown > 0 && (w.cooling.IsZero() || until.Before(w.cooling)) {
			w.cooling = until
		}
	}
	if w.written && reflect.DeepEqual(cur, w.last) {
		return
	}
	if err := writeHealth(w.home, cur); err != nil {
		w.rt.Logger.Warn("provider health not saved for joshbot status", "err", err)
	}
	w.last, w.written = cur, true
}

func writeHealth(home string, doc HealthDoc) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(home, HealthFile), append(b, '\n'), 0o600)
}

// ReadHealth returns what a running process last recorded in home; none
// when no daemon has run.
func ReadHealth(home string) (HealthDoc, error) {
	doc := HealthDoc{Providers: []output.ProviderHealth{}}
	b, err := os.ReadFile(filepath.Join(home, HealthFile))
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, errorf("%s is not valid JSON: %w", HealthFile, err)
	}
	if doc.Providers == nil {
		doc.Providers = []output.ProviderHealth{}
	}
	return doc, nil
}

// StartHealthFile keeps the process's provider health in the home for
// `joshbot status`, for a daemon; the returned function stops it and waits
// for the last write.
func (rt *Runtime) StartHealthFile(ctx context.Context) (stop func()) {
	home := rt.Home
	ctx, cancel := context.WithCancel(ctx)
	t := time.NewTicker(healthEvery)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rt.persistHealth(ctx, home, t.C)
	}()
	return func() {
		cancel()
		t.Stop()
		<-done
	}
}
