// Command mcpclient is an outside program that imports the published
// mcpclient module. It is also its own MCP server: started with
// OUTSIDE_MCP_SERVE=1 it serves one tool over stdio. The host approves the
// server's fingerprint in a trust store, starts it trusted and calls the tool.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func serve() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "outside", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "greet", Description: "Greets.", InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Who string }
			json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + a.Who}}}, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func main() {
	sandbox.RunHelperIfRequested()
	if os.Getenv("OUTSIDE_MCP_SERVE") == "1" {
		serve()
	}
	dir, err := os.MkdirTemp("", "outside-mcp-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	decl := []mcpclient.Server{{Name: "outside", Command: self, Env: map[string]string{"OUTSIDE_MCP_SERVE": "1"}}}
	ctx := context.Background()
	// A first start reports the fingerprint of the untrusted server.
	probe := mcpclient.NewManager(nil)
	probe.Start(ctx, decl)
	probe.Close()
	store := mcpclient.OpenTrustStore(filepath.Join(dir, "mcp.trust"))
	if err := store.Approve("outside", probe.Status()[0].SHA256); err != nil {
		log.Fatal(err)
	}
	m := mcpclient.NewManager(&mcpclient.Options{Trust: store})
	defer m.Close()
	if err := m.Start(ctx, decl); err != nil {
		log.Fatal(err)
	}
	if st := m.Status()[0]; st.State != mcpclient.StateTrusted {
		log.Fatalf("server state %v: %s", st.State, st.Reason)
	}
	tools := m.Tools()
	if len(tools) != 1 {
		log.Fatalf("%d tools, want 1", len(tools))
	}
	out, err := tools[0].Execute(ctx, json.RawMessage(`{"who":"outside"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("mcpclient ok: %s said %d bytes containing %q\n", tools[0].Name(), len(out), "hello outside")
	if !contains(out, "hello outside") {
		log.Fatalf("tool output %q", out)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
