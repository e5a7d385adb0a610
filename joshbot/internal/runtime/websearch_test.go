package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exaMCPServer is an in-process MCP server on loopback speaking Exa's
// tool names, recording the calls it answers.
func exaMCPServer(t *testing.T, calls *[]string) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "exa", Version: "1"}, nil)
	for _, name := range []string{"web_search_exa", "company_research_exa"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Exa " + name, InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"companyName":{"type":"string"},"numResults":{"type":"integer"}}}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				*calls = append(*calls, name+" "+string(req.Params.Arguments))
				text := "Title: From Exa MCP (" + name + ")\nURL: https://exa.ai/result\nText: found over MCP\n"
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs
}

// TestExaMCPLegThroughTheManager: web_search and web_company, with no
// exa-cli installed, reach Exa's tools on a real MCP server through the
// MCP manager, which is set after the search tools were registered.
func TestExaMCPLegThroughTheManager(t *testing.T) {
	var calls []string
	hs := exaMCPServer(t, &calls)
	decls := []mcpclient.Server{{Name: "exa", URL: hs.URL, AllowPrivate: true}}
	trust := mcpclient.OpenTrustStore(filepath.Join(t.TempDir(), "trust.json"))
	ctx := context.Background()
	first := mcpclient.NewManager(&mcpclient.Options{Trust: trust})
	if err := first.Start(ctx, decls); err != nil {
		t.Fatal(err)
	}
	st := first.Status()[0]
	first.Close()
	if err := trust.Approve(st.Name, st.SHA256); err != nil {
		t.Fatal(err)
	}

	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }))
	defer ddg.Close()
	src := &mcpSearchTools{}
	backends, err := searchBackends(&config.Web{Backends: []string{"exa-cli", "exa-mcp", "duckduckgo"}, DuckDuckGoURL: ddg.URL}, src, true, onPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	reg := tools.NewRegistry()
	if err := tools.RegisterWebSearch(reg, &tools.WebSearchOptions{Backends: backends}); err != nil {
		t.Fatal(err)
	}

	// Before the manager is set (or with no server up) the leg fails and
	// says why; DuckDuckGo is down too, so the whole chain fails.
	_, err = reg.Execute(ctx, "web_search", json.RawMessage(`{"query":"joshbot"}`))
	if err == nil || !strings.Contains(err.Error(), "exa-mcp: no connected MCP server offers web_search_exa") || !strings.Contains(err.Error(), `exa-cli: no "exa" executable on PATH`) {
		t.Fatalf("before the manager: %v", err)
	}

	m := mcpclient.NewManager(&mcpclient.Options{Trust: trust})
	defer m.Close()
	if err := m.Start(ctx, decls); err != nil {
		t.Fatal(err)
	}
	src.m.Store(m)
	for _, c := range []struct{ op, tool string }{{"web_search", "web_search_exa"}, {"web_company", "company_research_exa"}} {
		out, err := reg.Execute(ctx, c.op, json.RawMessage(`{"query":"joshbot","max_results":3}`))
		if err != nil || !strings.Contains(out, "(via exa-mcp)") || !strings.Contains(out, "From Exa MCP ("+c.tool+")") || !strings.Contains(out, "https://exa.ai/result") {
			t.Fatalf("%s: %q, %v", c.op, out, err)
		}
	}
	want := []string{`web_search_exa {"numResults":3,"query":"joshbot"}`, `company_research_exa {"companyName":"joshbot","numResults":3}`}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("server saw %q, want %q", calls, want)
	}
}

// TestSearchBackendsDefaultChain: the default chain holds each leg that
// is available, in the specified order.
func TestSearchBackendsDefaultChain(t *testing.T) {
	names := func(bs []tools.SearchBackend) string {
		var n []string
		for _, b := range bs {
			n = append(n, b.Name())
		}
		return strings.Join(n, " ")
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	bs, err := searchBackends(&config.Web{}, &mcpSearchTools{}, false, onPath)
	if err != nil || names(bs) != "duckduckgo" {
		t.Fatalf("nothing installed: %q, %v", names(bs), err)
	}
	bs, err = searchBackends(&config.Web{ExaAPIKey: "k"}, &mcpSearchTools{}, true, onPath)
	if err != nil || names(bs) != "exa-mcp exa duckduckgo" {
		t.Fatalf("MCP and a key: %q, %v", names(bs), err)
	}
	if err := os.WriteFile(filepath.Join(bin, "exa"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bs, err = searchBackends(&config.Web{}, &mcpSearchTools{}, true, onPath)
	if err != nil || names(bs) != "exa-cli exa-mcp duckduckgo" {
		t.Fatalf("exa installed, MCP: %q, %v", names(bs), err)
	}
}
