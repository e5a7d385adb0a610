package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// afterTests run once every test is done: removing what tests shared.
var afterTests []func()

// TestMain lets the test binary serve as the sandbox's helper: a command
// started by Sandbox.Command re-executes this binary with HelperArg.
// With helperEnv set (TestCorpusThroughDedicatedHelper) every sandbox
// uses that dedicated helper instead, and this binary refuses to serve,
// so a test that passes has run through the dedicated helper.
func TestMain(m *testing.M) {
	if p := os.Getenv(helperEnv); p != "" {
		if len(os.Args) > 1 && os.Args[1] == HelperArg {
			fmt.Fprintln(os.Stderr, "sandbox.test: run as the helper although the dedicated helper was set")
			os.Exit(125)
		}
		defaultHelper.path, defaultHelper.id = p, goToolBuildID(p)
	}
	throughStart = os.Getenv(startEnv) != ""
	RunHelperIfRequested()
	code := m.Run()
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}

// helperEnv names an already built dedicated helper, for the test binary
// re-run with the corpus going through it.
const helperEnv = "SANDBOX_TEST_HELPER"

// startEnv, set, has the test binary run every corpus command through
// Sandbox.Start with a helper prestarted (TestCorpusThroughPrestart), not
// through Sandbox.Command.
const startEnv = "SANDBOX_TEST_START"

// throughStart is startEnv's value: see runCmd.
var throughStart bool

// runCmd runs argv confined in dir with env, its output and error
// combined, and returns that output and its exit code (-1 with err set
// when it did not run to an exit); it fails t when the command cannot be
// started. With throughStart it goes through Sandbox.Start, a helper
// prestarted for it; otherwise through Sandbox.Command and os/exec.
func runCmd(t testing.TB, ctx context.Context, sb *Sandbox, dir string, argv, env []string) (out string, code int, err error) {
	t.Helper()
	var buf bytes.Buffer
	if throughStart {
		sb.Prestart()
		before := prestartedTaken.Load()
		p, err := sb.Start(ctx, &Cmd{Dir: dir, Args: argv, Env: env, Output: &buf})
		if err != nil {
			t.Fatal(err)
		}
		if prestartedTaken.Load() == before {
			t.Fatal("Start did not take the helper Prestart started")
		}
		code, err := p.Wait()
		return buf.String(), code, err
	}
	cmd, cleanup, err := sb.Command(ctx, dir, argv, env)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return buf.String(), 0, nil
	case errors.As(err, &ee) && ee.Exited():
		return buf.String(), ee.ExitCode(), nil
	}
	return buf.String(), -1, err
}

// goToolBuildID is the Go build ID of the executable at path as the go
// command reads it, or empty.
func goToolBuildID(path string) string {
	out, err := exec.Command("go", "tool", "buildid", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
