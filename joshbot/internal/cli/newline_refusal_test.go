package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestShellNewlinesThroughTheBinary (issue 22 item 16): a newcomer's setup
// (onboard against an OpenAI-compatible server, tools.shell_allow set, no
// sandbox) and a model whose shell commands carry newlines, run through
// the built binary's `agent -m`. The tool result the model gets back never
// quotes an empty `""`: a newline between allowed commands runs them, a
// refused one names the program or character to change. Before the
// screener parsed commands as shell (606b13b), every one of these got
// `"" can start a second command, ... without ""`.
func TestShellNewlinesThroughTheBinary(t *testing.T) {
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.json")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--config", cfgPath}, args...)...)
		cmd.Env = append(os.Environ(), "JOSHBOT_HOME="+home, "HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("joshbot %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("onboard", "--provider", "custom", "--api-base", srv.URL(), "--model", "scripted-model", "--shell-sandbox", "off")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tools.ShellAllow = []string{"ls", "echo"}
	cfg.Agents.Defaults.Learning = "off"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ command, want string }{
		{"ls\n", "exit code: 0"},
		{"ls\nls", "exit code: 0"},
		{"echo one\n\necho two\n", "one\ntwo"},
		{"ls \\\n-a", "exit code: 0"},
		{"ls\n\nrm x", `"rm" is not on the allowlist (tools.shell_allow)`},
		{"\nrm x", `"rm" is not on the allowlist (tools.shell_allow)`},
		{"echo a\r\nb", "the command contains a carriage return"},
		{"''\nls", "the program name is empty"},
		{" \n\t", `missing required argument "command"`},
	} {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		srv.Enqueue(providertest.ToolCalls(providertest.Call("shell", string(args))), providertest.Text("ok"))
		run("agent", "-m", "run it")
		reqs := srv.Requests()
		msgs := reqs[len(reqs)-1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != providers.RoleTool {
			t.Fatalf("%q: the last message the model got is %s %q, want the tool result", tt.command, last.Role, last.Content)
		}
		if strings.Contains(last.Content, `""`) || !strings.Contains(last.Content, tt.want) {
			t.Errorf("shell %q gave the model %q; want it to contain %q and no empty \"\"", tt.command, last.Content, tt.want)
		}
	}
}
