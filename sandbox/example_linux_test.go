package sandbox_test

import (
	"bytes"
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

// A program that runs one command after another (a chat agent's shell)
// keeps a helper started ahead with Prestart, and runs each command
// through Start, whose output comes combined; Close stops the helper
// still waiting. Each command still gets namespaces of its own.
func ExampleSandbox_Start() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil)
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	env := sandbox.ChildEnv(os.Environ(), nil)
	sb.Prestart()
	for _, line := range []string{"echo first > f && cat f", "cat f /proc/sys/kernel/hostname; exit 3"} {
		var out bytes.Buffer
		p, err := sb.Start(context.Background(), &sandbox.Cmd{Dir: ws, Args: []string{"/bin/sh", "-c", line}, Env: env, Output: &out})
		if err != nil {
			panic(err)
		}
		code, err := p.Wait()
		if err != nil {
			panic(err)
		}
		sb.Prestart() // for the next command
		fmt.Printf("exit %d: %s", code, out.String())
	}
	// Output:
	// exit 0: first
	// exit 3: first
	// sandbox
}
