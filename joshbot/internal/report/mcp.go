package report

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
)

// Declared lists the MCP servers cfg declares, for a message, or says how
// to declare one.
func Declared(cfg *config.Config) string {
	names := cfg.MCP.Names()
	if len(names) == 0 {
		return "none (add them under \"mcp\": {\"servers\": {...}})"
	}
	return strings.Join(names, ", ")
}

// MCPDoc is the JSON document of `joshbot mcp list --output json`.
type MCPDoc struct {
	SchemaVersion int         `json:"schema_version"`
	TrustStore    string      `json:"trust_store"`
	Servers       []MCPServer `json:"servers"`
}

// MCPServer is one declared server in an [MCPDoc]: its declaration and
// what starting it showed.
type MCPServer struct {
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

// InspectMCP starts the named servers (all declared ones when only is
// empty; disabled ones only when named), reads their state and manifests,
// and stops them. The manifests are cached in the file manifestCache.
func InspectMCP(ctx context.Context, cfg *config.Config, store *mcpclient.TrustStore, manifestCache string, only []string) (*MCPDoc, error) {
	names := only
	if len(names) == 0 {
		names = cfg.MCP.Names()
	}
	doc := &MCPDoc{SchemaVersion: 1, TrustStore: config.Tilde(store.Path()), Servers: []MCPServer{}}
	var decls []mcpclient.Server
	for _, n := range names {
		s := cfg.MCP.Servers[n]
		if s.IsEnabled() || len(only) > 0 {
			decls = append(decls, s.Server(n))
		}
	}
	// The manifests read here are cached, so the next agent, gateway or
	// serve offers a server approved meanwhile at once.
	m := mcpclient.NewManager(&mcpclient.Options{Trust: store, ManifestCache: manifestCache})
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
		row := MCPServer{Name: n, Enabled: s.IsEnabled(), Command: s.Command, Args: s.Args, URL: s.URL}
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

// WriteMCPText renders doc for a person. Server-supplied text is
// stripped of control characters first, so a description cannot drive the
// operator's terminal.
func WriteMCPText(w io.Writer, doc *MCPDoc) {
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
