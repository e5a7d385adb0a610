package docscheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// verifyTree is a source tree whose README promises a version its tool
// does not print, and a sandboxed shell confined to it.
func verifyTree(t *testing.T) (root string, shell *tools.Shell) {
	t.Helper()
	if rep := sandbox.Probe(); !rep.Available {
		t.Skipf("no sandbox on this system: %s", rep.Reason)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "README.md"), []byte("`sh tool.sh --version` prints 2.0.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "tool.sh"), []byte("echo \"tool version 1.0\"\n"), 0o644)
	sb, err := sandbox.New(&sandbox.Policy{Workspace: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	shell, err = tools.NewShell(&tools.ShellOptions{Workspace: root, Sandbox: sb, Approval: tools.ApprovalAlways})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shell.Close() })
	return root, shell
}

const verifyAnswer = `{"findings":[
 {"title":"README's version is wrong","doc":"README.md","evidence":[{"command":"sh tool.sh --version","output":"something the model made up"}],"proposal":"Say 1.0."},
 {"title":"Never checked","doc":"README.md","evidence":[{"command":"make docs","output":"fails"}],"proposal":"?"}
]}`

// TestCheckVerifiesWithTheShell: the checker runs a command through the
// sandboxed shell, the human approves it, and the finding that cites the
// command carries it and its real output; a finding citing a command that
// never ran is dropped.
func TestCheckVerifiesWithTheShell(t *testing.T) {
	root, shell := verifyTree(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"sh tool.sh --version"}`)),
		providertest.Text(verifyAnswer),
	)
	client, _ := providers.NewClient(&providers.ClientOptions{Name: "custom", BaseURL: srv.URL()})
	var mu sync.Mutex
	var asked []sandbox.ApprovalRequest
	human := sandbox.ApproverFunc(func(_ context.Context, req *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *req)
		return sandbox.Allow, nil
	})
	rep, err := Check(context.Background(), &Options{
		Root: root, Workspace: filepath.Join(t.TempDir(), "ws"), Provider: client, Model: "m",
		Shell: shell, Approver: human,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 1 || rep.Dropped != 1 {
		t.Fatalf("report %+v, want 1 kept, 1 dropped", rep)
	}
	b, _ := os.ReadFile(rep.Path)
	r := string(b)
	if !strings.Contains(r, "- Evidence: ran `sh tool.sh --version`, which printed:") || !strings.Contains(r, "tool version 1.0") {
		t.Fatalf("the command and its output are not the evidence:\n%s", r)
	}
	if strings.Contains(r, "made up") || strings.Contains(r, "Never checked") {
		t.Fatalf("the model's own output or an unrun command reached the report:\n%s", r)
	}
	if len(asked) != 1 || asked[0].Command != "sh tool.sh --version" || !asked[0].Confined {
		t.Fatalf("approval requests %+v, want one for the confined command", asked)
	}
	reqs := srv.Requests()
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Function.Name)
	}
	if strings.Join(names, ",") != "glob,grep,list_dir,read_file,shell" || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Content, "read-only commands") {
		t.Fatalf("tools offered %v; the prompt must ask for read-only commands", names)
	}
}

// TestCheckWithoutApproverRefusesCommands: unattended (no approver, as on
// cron) the shell refuses every command, the checker is told so, and no
// finding can cite one.
func TestCheckWithoutApproverRefusesCommands(t *testing.T) {
	root, shell := verifyTree(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"sh tool.sh --version"}`)),
		providertest.Text(verifyAnswer),
	)
	client, _ := providers.NewClient(&providers.ClientOptions{Name: "custom", BaseURL: srv.URL()})
	rep, err := Check(context.Background(), &Options{
		Root: root, Workspace: filepath.Join(t.TempDir(), "ws"), Provider: client, Model: "m", Shell: shell,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 0 || rep.Dropped != 2 {
		t.Fatalf("report %+v, want both findings dropped", rep)
	}
	msgs := srv.Requests()[1].Messages
	if res := msgs[len(msgs)-1].Content; !strings.Contains(res, "not run: approval was not given") {
		t.Fatalf("the shell's answer to the checker = %q", res)
	}
}
