package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/sandbox"
)

// A confined command: it may write its workspace and nothing else. A
// program using the sandbox calls sandbox.RunHelperIfRequested first thing
// in main, because on Linux the helper that applies the confinement is
// this same binary run again:
//
//	func main() {
//		sandbox.RunHelperIfRequested()
//		...
//	}
//
// This example runs in a test binary whose TestMain makes that call. Where
// the host cannot confine a command, New returns an error wrapping
// ErrUnsupported and nothing runs; the example is built on Linux only.
func ExampleSandbox_Command() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	env := sandbox.ChildEnv(os.Environ(), nil)
	home, _ := os.UserHomeDir()
	outside := filepath.Join(home, ".sandbox-example-outside")
	defer os.Remove(outside)
	line := `echo hello from the workspace > note.txt && cat note.txt && (echo x > ` + outside + ` 2>/dev/null && echo "writing outside: allowed" || echo "writing outside: refused")`
	cmd, cleanup, err := sb.Command(ctx, ws, []string{"/bin/sh", "-c", line}, env)
	if err != nil {
		panic(err)
	}
	defer cleanup()
	out, err := cmd.Output()
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// hello from the workspace
	// writing outside: refused
}
