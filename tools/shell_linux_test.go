//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

// TestShellSandboxLeavesNothing is issue 18's persistence family through
// the shell tool: a background job, a setsid double fork, an async job's
// grandchild and a timed-out command all die with their call, with each
// command's helper started when it runs and started ahead of it
// (ShellOptions.Prestart).
func TestShellSandboxLeavesNothing(t *testing.T) {
	rep := sandbox.Probe()
	if !rep.Available || rep.Platform != "linux" {
		t.Skipf("no Linux sandbox on this system: %s", rep.Reason)
	}
	for _, prestart := range []bool{false, true} {
		t.Run(fmt.Sprint("prestart=", prestart), func(t *testing.T) { shellLeavesNothing(t, prestart) })
	}
}

func shellLeavesNothing(t *testing.T, prestart bool) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newShellT(t, ShellOptions{Workspace: ws, Sandbox: sb, Prestart: prestart})
	defer s.Close()
	// alive lists the host's processes whose command line holds marker.
	alive := func(marker string) []string {
		var found []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
				found = append(found, e.Name())
			}
		}
		return found
	}
	gone := func(marker string) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for len(alive(marker)) > 0 {
			if time.Now().After(deadline) {
				for _, p := range alive(marker) {
					if pid, err := strconv.Atoi(p); err == nil {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
				t.Fatalf("%q outlived its call", marker)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	n := time.Now().UnixNano() % 1000000
	for i, tt := range []struct {
		name, cmd string
		extra     []string
	}{
		{"background", "sleep 97%d & echo started", nil},
		{"setsid double fork", "(setsid sleep 97%d &) </dev/null >/dev/null 2>&1; echo started", nil},
		{"timed out", "sleep 97%d & sleep 97%[1]d", []string{`"timeout_seconds":1`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			marker := fmt.Sprintf("sleep 97%d", n*10+int64(i))
			cmd := fmt.Sprintf(tt.cmd, n*10+int64(i))
			start := time.Now()
			out, err := s.Execute(context.Background(), shellArgsJSON(cmd, tt.extra...))
			if tt.extra == nil && (err != nil || !strings.Contains(out, "started")) {
				t.Fatalf("got %q, %v; want the command's output", out, err)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the call took %v", time.Since(start))
			}
			gone(marker)
		})
	}
	t.Run("async grandchild", func(t *testing.T) {
		marker := fmt.Sprintf("sleep 96%d", n)
		out, err := s.Execute(context.Background(), shellArgsJSON("("+marker+" &) ; echo started", `"async":true`))
		if err != nil {
			t.Fatal(err)
		}
		id := regexp.MustCompile(`job-\d+`).FindString(out)
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, err := s.Execute(context.Background(), json.RawMessage(`{"job_id":"`+id+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(st, "exit code") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the job did not finish: %q", st)
			}
			time.Sleep(50 * time.Millisecond)
		}
		gone(marker)
	})
}

// Shell.Prepare starts the helper of the coming command ahead of it, even
// in a shell that keeps none started (ShellOptions.Prestart false), and
// the command then runs as usual.
func TestShellPrepareStartsTheHelperAhead(t *testing.T) {
	rep := sandbox.Probe()
	if !rep.Available || rep.Platform != "linux" {
		t.Skipf("no Linux sandbox on this system: %s", rep.Reason)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newShellT(t, ShellOptions{Workspace: ws, Sandbox: sb})
	defer s.Close()
	// waiting counts this process's children that are helpers waiting
	// for a command.
	waiting := func() int {
		n := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// The parent's pid is the fourth field, after the
			// parenthesised command name.
			f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
			if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
				continue
			}
			cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if strings.Contains(string(cl), "--await-request") {
				n++
			}
		}
		return n
	}
	if n := waiting(); n != 0 {
		t.Fatalf("%d helpers waiting before Prepare", n)
	}
	s.Prepare()
	deadline := time.Now().Add(5 * time.Second)
	for waiting() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no helper waiting after Prepare (%d)", waiting())
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, err := s.Execute(context.Background(), shellArgsJSON("echo prepared"))
	if err != nil || !strings.Contains(out, "prepared") {
		t.Fatalf("got %q, %v", out, err)
	}
}
