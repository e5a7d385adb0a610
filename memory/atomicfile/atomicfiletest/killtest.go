// Package atomicfiletest runs kill tests for code that rewrites files: a
// child process (the test binary run again) rewrites a file in a loop and
// is SIGKILLed at random points, and after each kill the test checks that
// the file holds the old or the new complete content and that no stray
// temporary file remains once the store is opened again.
//
// A kill test calls [Dir] first and [Child] second; in the child they
// return the parent's directory and run the write loop, which never
// returns. The parent then calls [Kill]:
//
//	func TestStoreSurvivesKill(t *testing.T) {
//		dir := atomicfiletest.Dir(t)
//		atomicfiletest.Child(t, func(i int) { writeVersion(dir, i) })
//		writeVersion(dir, 0)
//		atomicfiletest.Kill(t, dir, 20, func(t *testing.T) { checkAndReopen(t, dir) })
//	}
//
// Kill tests need a platform with SIGKILL; elsewhere Kill skips.
package atomicfiletest

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

const (
	envDir = "JOSHBOT_KILLTEST_DIR"
	ready  = "atomicfiletest: writing\n"
)

// Dir returns the directory the test's files live in: a fresh temporary
// directory in the parent, the parent's directory in the child.
func Dir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(envDir); d != "" {
		return d
	}
	return t.TempDir()
}

// Child, in the child process, calls write(1), write(2), ... until the
// process is killed; it never returns there. In the parent it does
// nothing. write should write version i of the file through the code
// under test and may panic on failure (the parent sees the child die
// before it was killed).
func Child(t *testing.T, write func(i int)) {
	t.Helper()
	if os.Getenv(envDir) == "" {
		return
	}
	os.Stdout.WriteString(ready)
	for i := 1; ; i++ {
		write(i)
	}
}

// Kill runs the current test in a child process rounds times, with dir
// (the one [Dir] returned) as the child's directory, SIGKILLs it
// after a random delay of up to 80ms each time, and calls check after
// every kill. check should read the file through the code under test,
// fail unless it holds a complete version, reopen the store (which must
// sweep temporaries), and may call [NoTemp].
func Kill(t *testing.T, dir string, rounds int, check func(t *testing.T)) {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("kill tests need SIGKILL")
	}
	if testing.Short() {
		rounds = min(rounds, 3)
	}
	name := "^" + strings.ReplaceAll(t.Name(), "/", "$/^") + "$"
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run="+name, "-test.count=1")
		cmd.Env = append(os.Environ(), envDir+"="+dir)
		out := &strings.Builder{}
		cmd.Stderr = out
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child is in its write loop, then kill it after
		// a random delay, so kills land before, during and between
		// writes, and in every step of one.
		started := make(chan bool, 1)
		go func() {
			line, err := bufio.NewReader(pipe).ReadString('\n')
			started <- err == nil && line == ready
			io.Copy(io.Discard, pipe)
		}()
		select {
		case ok := <-started:
			if !ok {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: the child did not start its write loop:\n%s", round, out)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the child did not start within 30s:\n%s", round, out)
		}
		time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the writer ended on its own (%v) instead of being killed:\n%s", round, err, out)
		}
		check(t)
	}
}

// NoTemp fails t if dir holds a temporary file of package atomicfile.
func NoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			t.Errorf("stray temporary file %s", filepath.Join(dir, e.Name()))
		}
	}
}
