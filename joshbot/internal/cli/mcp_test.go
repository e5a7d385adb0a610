package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// npmServer returns the path of an MCP server the Makefile installs with
// npm ci from mcpclient/testdata/npm, or skips saying how to install it.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "mcpclient", "testdata", "npm", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (%v): run `make mcp-servers`; `make test` does it first", bin, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not on PATH, so the npm MCP servers cannot run: %v", err)
	}
	return p
}

// mcpConfig adds servers to the scripted config at cfgPath.
func withMCP(t *testing.T, cfgPath string, servers map[string]config.MCPServer) {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.Servers = servers
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
}

func off() *bool { b := false; return &b }

func TestMCPListTrustUntrustWithRealServers(t *testing.T) {
	clearProviderEnv(t)
	everything := npmServer(t, "mcp-server-everything")
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	withMCP(t, cfgPath, map[string]config.MCPServer{
		"everything": {Command: everything},
		"parked":     {Command: everything, Enabled: off()},
	})

	r := runCLI(t, "", "--config", cfgPath, "mcp", "list")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"everything: untrusted (stdio: ", "joshbot mcp trust everything", "mcp__everything__echo", "manifest sha256 ", "parked: disabled", "mcp.servers.parked.enabled is false"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}

	r = runCLI(t, "", "--config", cfgPath, "mcp", "list", "--output", "json")
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Servers       []struct {
			Name, State, SHA256 string
			Tools               []struct{ Name, Description string }
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
		t.Fatalf("json: %v %+v", err, r)
	}
	if doc.SchemaVersion != 1 || len(doc.Servers) != 2 || doc.Servers[0].Name != "everything" || doc.Servers[0].State != "untrusted" || len(doc.Servers[0].Tools) < 5 {
		t.Fatalf("%+v", doc)
	}
	hash := doc.Servers[0].SHA256

	r = runCLI(t, "", "--config", cfgPath, "mcp", "trust", "everything", "--sha256", strings.Repeat("0", 64))
	if r.code != 1 || !strings.Contains(r.stderr, "not the 000") {
		t.Fatalf("wrong hash approved: %+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "mcp", "trust", "nosuch")
	if r.code != 1 || !strings.Contains(r.stderr, "declared servers are everything, parked") {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "mcp", "trust", "everything", "--sha256", hash)
	if r.code != 0 || !strings.Contains(r.stdout, "Trusted everything") {
		t.Fatalf("%+v", r)
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(cfgPath), "mcp.trust"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust store: %v %v", fi, err)
	}
	r = runCLI(t, "", "--config", cfgPath, "mcp", "list")
	if !strings.Contains(r.stdout, "everything: trusted") {
		t.Fatalf("after trust:\n%s", r.stdout)
	}
	r = runCLI(t, "", "--config", cfgPath, "mcp", "untrust", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "no longer trusted") {
		t.Fatalf("%+v", r)
	}
	if r = runCLI(t, "", "--config", cfgPath, "mcp", "list"); !strings.Contains(r.stdout, "everything: untrusted") {
		t.Fatalf("after untrust:\n%s", r.stdout)
	}
	if r = runCLI(t, "", "--config", cfgPath, "mcp", "list", "--output", "yaml"); r.code != 1 || !strings.Contains(r.stderr, "use text or json") {
		t.Fatalf("%+v", r)
	}
}

func TestAgentOffersOnlyTrustedMCPTools(t *testing.T) {
	clearProviderEnv(t)
	everything := npmServer(t, "mcp-server-everything")
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	withMCP(t, cfgPath, map[string]config.MCPServer{"everything": {Command: everything}})

	// Untrusted: the model is not told about the server's tools.
	srv.Enqueue(providertest.Text("no tools from it"))
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hi"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, d := range srv.Requests()[0].Tools {
		if strings.HasPrefix(d.Function.Name, "mcp__") {
			t.Fatalf("untrusted tool %s offered", d.Function.Name)
		}
	}

	if r := runCLI(t, "", "--config", cfgPath, "mcp", "trust", "everything"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("mcp__everything__echo", `{"message":"through the agent"}`)),
		providertest.Text("done"),
	)
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "echo something"); r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()
	offered := false
	for _, d := range reqs[1].Tools {
		if d.Function.Name == "mcp__everything__echo" {
			offered = strings.HasPrefix(d.Function.Description, `[from MCP server "everything"]`)
		}
	}
	if !offered {
		t.Fatal("trusted tool not offered with its labelled description")
	}
	msgs := reqs[2].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "Echo: through the agent") || !strings.Contains(last.Content, `<tool_output source="mcp:everything/echo"`) {
		t.Fatalf("tool result: %+v", last)
	}
}

func TestMCPConfigErrorsNameTheKey(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	for _, tt := range []struct {
		name   string
		server config.MCPServer
		want   string
	}{
		{"a__b", config.MCPServer{Command: "x"}, "mcp.servers.a__b"},
		{"both", config.MCPServer{Command: "x", URL: "https://e.com/mcp"}, "mcp.servers.both"},
		{"none", config.MCPServer{}, "set command"},
		{"quick", config.MCPServer{Command: "x", CallTimeout: config.Duration(10 * time.Millisecond)}, "mcp.servers.quick.call_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfgPath := scriptedConfig(t, srv)
			cfg, _ := config.Load(cfgPath)
			cfg.MCP.Servers = map[string]config.MCPServer{tt.name: tt.server}
			raw, _ := json.Marshal(cfg)
			os.WriteFile(cfgPath, raw, 0o600)
			r := runCLI(t, "", "--config", cfgPath, "mcp", "list")
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("%+v", r)
			}
		})
	}
}

// children lists the pids whose parent is pid, from /proc.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

func TestBinaryReapsMCPServersOnSignal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to find the server processes")
	}
	bin := binary(t)
	everything := npmServer(t, "mcp-server-everything")
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	withMCP(t, cfgPath, map[string]config.MCPServer{"one": {Command: everything}, "two": {Command: everything}})
	for _, n := range []string{"one", "two"} {
		if r := runCLI(t, "", "--config", cfgPath, "mcp", "trust", n); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--config", cfgPath, "agent")
			stdin, _ := cmd.StdinPipe()
			defer stdin.Close()
			stdout, _ := cmd.StdoutPipe()
			go bufio.NewReader(stdout).WriteTo(os.Stderr)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var kids []int
			for deadline := time.Now().Add(15 * time.Second); len(kids) < 2 && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
				kids = children(cmd.Process.Pid)
			}
			if len(kids) < 2 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("found %d server processes", len(kids))
			}
			time.Sleep(300 * time.Millisecond) // let startup finish so the signal lands in the conversation
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("joshbot did not exit")
			}
			for _, k := range kids {
				deadline := time.Now().Add(5 * time.Second)
				for syscall.Kill(k, 0) == nil && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if err := syscall.Kill(k, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("server process %d survived joshbot", k)
				}
			}
		})
	}
}

func TestMCPListWithoutServers(t *testing.T) {
	clearProviderEnv(t)
	cfgPath := scriptedConfig(t, providertest.NewServer(t))
	r := runCLI(t, "", "--config", cfgPath, "mcp", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "No MCP servers are declared") {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "mcp", "list", "--output", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
		t.Fatalf("%v %+v", err, r)
	}
	if s, ok := doc["servers"].([]any); !ok || len(s) != 0 {
		t.Fatalf("servers = %#v, want an empty list", doc["servers"])
	}
	if r = runCLI(t, "", "--config", cfgPath, "mcp", "untrust", "ghost"); r.code != 0 || !strings.Contains(r.stdout, "ghost was not trusted") {
		t.Fatalf("%+v", r)
	}
}

func TestBinaryInterruptedWhileServersStart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to find the server processes")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program to stand in for a server that never answers")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	// A "server" that never answers its handshake. Servers start beside
	// the first model request, so the turn is under way (its answer held
	// back) while the server hangs.
	withMCP(t, cfgPath, map[string]config.MCPServer{"mute": {Command: sleep, Args: []string{"600"}}})
	srv.Enqueue(providertest.Reply{Content: "too late", Delay: time.Minute})
	cmd := exec.Command(bin, "--config", cfgPath, "agent", "-m", "hi")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var kids []int
	for deadline := time.Now().Add(10 * time.Second); len(kids) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		kids = children(cmd.Process.Pid)
	}
	if len(kids) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the server was never started")
	}
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("joshbot took %s to stop", d)
	}
	if err == nil || !strings.Contains(stderr.String(), "turn stopped") {
		t.Fatalf("exit %v, stderr %q", err, stderr.String())
	}
	for _, k := range kids {
		if err := syscall.Kill(k, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process %d survived", k)
		}
	}
}
