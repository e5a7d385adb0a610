package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// TestDedicatedHelperThroughBinary builds joshbot and joshbot-sandbox as
// make build does (the helper's Go build ID linked into joshbot) and runs a
// shell call: the command's PID namespace starts with joshbot-sandbox,
// not joshbot, and it is confined. A joshbot-sandbox of another build
// beside it is never run: the call fails saying so, and nothing ran.
func TestDedicatedHelperThroughBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries; skipped in -short mode")
	}
	if rep := sandbox.Probe(); !rep.Available || !rep.CanDenyNetwork {
		t.Skipf("no usable sandbox here: %+v", rep)
	}
	clearProviderEnv(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	helper := filepath.Join(dir, runtime.HelperName)
	build := func(out, pkg, ldflags string) {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	// As make build links it: on linux/amd64 its entry point makes its
	// namespaces (sandbox/helper.Entry).
	entry := ""
	if goruntime.GOARCH == "amd64" {
		entry = " -E github.com/joshbot/joshbot/sandbox/helper.Entry"
	}
	build(helper, "../../cmd/joshbot-sandbox", "-s -w"+entry)
	id, err := exec.Command("go", "tool", "buildid", helper).Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "joshbot")
	build(bin, "../../cmd/joshbot", "-s -w -X "+runtime.HelperBuildIDVar+"="+strings.TrimSpace(string(id)))

	turn := func(command string) string {
		t.Helper()
		srv := providertest.NewServer(t)
		cfgPath, _ := toolsConfig(t, srv, config.Tools{ShellSandbox: "workspace"})
		srv.Enqueue(
			providertest.ToolCalls(providertest.Call("shell", fmt.Sprintf("{\"command\":%q}", command))),
			providertest.Text("done"),
		)
		cmd := exec.Command(bin, "--config", cfgPath, "agent", "-m", "run it")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return lastToolResult(t, srv, 1)
	}
	res := turn(`tr '\0' '\n' </proc/1/cmdline | head -1; cat /etc/shadow`)
	if !strings.Contains(res, helper+"\n") || !strings.Contains(res, "/etc/shadow: Permission denied") {
		t.Fatalf("tool result %q: want %s as process 1 and /etc/shadow refused", res, helper)
	}

	// A helper of another build in its place.
	build(helper, "../../cmd/joshbot-sandbox", "-w")
	res = turn("echo SHOULD-NOT-RUN")
	if !strings.Contains(res, "has Go build ID") || !strings.Contains(res, helper) || strings.Contains(res, "SHOULD-NOT-RUN\n") {
		t.Fatalf("tool result %q: want the helper of another build refused, naming it", res)
	}

	// Something else in its place: it never runs.
	marker := filepath.Join(dir, "stale-helper-ran")
	if err := os.WriteFile(helper, []byte("#!/bin/sh\ntouch "+marker+"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res = turn("echo SHOULD-NOT-RUN")
	if !strings.Contains(res, "not the expected build") || !strings.Contains(res, helper) || strings.Contains(res, "SHOULD-NOT-RUN\n") {
		t.Fatalf("tool result %q: want the stale helper refused, naming it", res)
	}
	t.Logf("the stale helper's refusal: %s", res)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the stale helper ran")
	}
}
