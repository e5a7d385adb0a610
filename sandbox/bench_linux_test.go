//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// BenchmarkConfinedTrue is the cost of one confined call: /bin/true run
// through Sandbox.Command, from Command to the end of Wait.
func BenchmarkConfinedTrue(b *testing.B) {
	if r := Probe(); !r.Available {
		b.Skipf("no sandbox here: %s", r.Reason)
	}
	for _, bb := range []struct {
		name string
		net  bool
	}{{"network denied", false}, {"network allowed", true}} {
		sb, err := New(&Policy{Workspace: b.TempDir(), AllowNetwork: bb.net}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) { benchTrue(b, sb) })
	}
}

// BenchmarkConfinedTrueHelper compares the two helpers a program can use:
// itself re-executed (the default; here the test binary) and a dedicated
// helper whose main calls only RunHelperIfRequested (testdata/helper),
// each run in turn within one benchmark run so drift hits both alike.
// faults/op counts the minor page faults of the helper and the command.
func BenchmarkConfinedTrueHelper(b *testing.B) {
	if r := Probe(); !r.Available {
		b.Skipf("no sandbox here: %s", r.Reason)
	}
	path, id := dedicatedHelper(b)
	ws := b.TempDir()
	self, err := New(&Policy{Workspace: ws}, nil)
	if err != nil {
		b.Fatal(err)
	}
	dedicated, err := New(&Policy{Workspace: ws}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		b.Fatal(err)
	}
	for _, round := range []int{1, 2} {
		for _, bb := range []struct {
			name string
			sb   *Sandbox
		}{{"self", self}, {"dedicated", dedicated}} {
			b.Run(bb.name+"/round"+string(rune('0'+round)), func(b *testing.B) { benchTrue(b, bb.sb) })
		}
	}
}

// benchTrue runs /bin/true confined in sb b.N times and reports the
// children's minor page faults per run.
func benchTrue(b *testing.B, sb *Sandbox) {
	env := ChildEnv(os.Environ(), nil)
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	n := 0
	for b.Loop() {
		cmd, cleanup, err := sb.Command(context.Background(), sb.Policy().Workspace, []string{"/bin/true"}, env)
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		cleanup()
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	b.ReportMetric(float64(after.Minflt-before.Minflt)/float64(n), "faults/op")
}

// BenchmarkFirstCommand is the cost of a process's first confined call:
// a fresh Sandbox each iteration, with the user namespaces a root
// process keeps for idmapped mounts forgotten, so the seccomp filter,
// the helper's opening and check, and the namespaces are made anew
// (the probe's report is the only thing reused, as a probe cache would).
func BenchmarkFirstCommand(b *testing.B) {
	r := Probe()
	if !r.Available {
		b.Skipf("no sandbox here: %s", r.Reason)
	}
	saved := probe
	probe = func() Report { return r }
	b.Cleanup(func() { probe = saved })
	ws := b.TempDir()
	env := ChildEnv(os.Environ(), nil)
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	n := 0
	for b.Loop() {
		forgetUsernses()
		sb, err := New(&Policy{Workspace: ws}, nil)
		if err != nil {
			b.Fatal(err)
		}
		cmd, cleanup, err := sb.Command(context.Background(), ws, []string{"/bin/true"}, env)
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		cleanup()
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	b.ReportMetric(float64(after.Minflt-before.Minflt)/float64(n), "faults/op")
}

// forgetUsernses closes the kept user namespaces, as in a new process.
func forgetUsernses() {
	usernses.mu.Lock()
	defer usernses.mu.Unlock()
	for o, f := range usernses.m {
		f.Close()
		delete(usernses.m, o)
	}
}

// BenchmarkStartTrue is the cost of one confined call through
// Sandbox.Start, the shell tool's path: /bin/true from Start to the end
// of Wait, with no helper started ahead ("cold"), with one prestarted
// and ready ("prestarted", the wait for it outside the timer), and with
// one that has also waited 20 ms ("prestarted idle"), as a helper does
// between a conversation's commands; and with no helper started ahead
// through the dedicated helper, which makes its own namespaces on
// linux/amd64 ("cold dedicated"), and through the same helper linked
// without helper.Entry ("cold dedicated without entry"). parent-faults/op
// counts this process's minor faults per call.
func BenchmarkStartTrue(b *testing.B) {
	if r := Probe(); !r.Available {
		b.Skipf("no sandbox here: %s", r.Reason)
	}
	sb, err := New(&Policy{Workspace: b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	env := ChildEnv(os.Environ(), nil)
	// The dedicated helper, on linux/amd64 linked with helper.Entry: it
	// makes its own namespaces, so Start starts it by vfork.
	path, id := dedicatedHelper(b)
	dedicated, err := New(&Policy{Workspace: b.TempDir()}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		b.Fatal(err)
	}
	// The same helper linked without it, started in its namespaces.
	path, id = noEntryHelper(b)
	noEntry, err := New(&Policy{Workspace: b.TempDir()}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		b.Fatal(err)
	}
	noEntry.plat.noEntry.Store(true)
	for _, bb := range []struct {
		name string
		sb   *Sandbox
		warm bool
		// idle is how long the helper waits once it said it started,
		// as it would between a conversation's commands (a model's
		// answer takes longer), so what it does before it blocks is
		// done too.
		idle time.Duration
	}{{"cold", sb, false, 0}, {"prestarted", sb, true, 0}, {"prestarted idle", sb, true, 20 * time.Millisecond}, {"cold dedicated", dedicated, false, 0}, {"cold dedicated without entry", noEntry, false, 0}} {
		b.Run(bb.name, func(b *testing.B) {
			// This process's minor faults, a helper's start included:
			// the copy-on-write faults a fork leaves are among them.
			faults := minorFaults()
			for b.Loop() {
				if bb.warm {
					b.StopTimer()
					prestarted(b, bb.sb)
					time.Sleep(bb.idle)
					b.StartTimer()
				}
				p, err := bb.sb.Start(context.Background(), &Cmd{Dir: bb.sb.Policy().Workspace, Args: []string{"/bin/true"}, Env: env})
				if err != nil {
					b.Fatal(err)
				}
				if code, err := p.Wait(); code != 0 || err != nil {
					b.Fatal(code, err)
				}
			}
			b.ReportMetric(float64(minorFaults()-faults)/float64(b.N), "parent-faults/op")
		})
	}
}

// BenchmarkRewriteAfterSpawn is what starting a child costs its parent
// afterwards: rewriting rewritePages pages it had written before the
// child started. Go's syscall package forks a child that gets a user
// namespace (the parent must write its id maps before the child runs
// on), where it starts any other child with vfork; a fork write-protects
// every page of the parent, so each page it writes again, until it exits,
// costs a minor fault. Every sandbox helper gets a user namespace, so
// after a confined command the parent pays a fault for each page it
// touches; a one-shot turn writes about 200 after its shell call. Each
// op starts /bin/true with or without a user namespace, waits for it and
// rewrites the pages; rewrite-faults/op counts the rewrite's minor faults
// and rewrite-ns/page times it.
func BenchmarkRewriteAfterSpawn(b *testing.B) {
	probe := exec.Command("/bin/true")
	probe.SysProcAttr = childAttr()
	if err := probe.Run(); err != nil {
		b.Skipf("no user namespace for a child here: %v", err)
	}
	buf := make([]byte, rewritePages*os.Getpagesize())
	for _, bb := range []struct {
		name string
		attr func() *syscall.SysProcAttr
	}{
		{"user namespace", childAttr},
		{"no namespace", func() *syscall.SysProcAttr { return nil }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			touchPages(buf)
			var faults int64
			var rewrite time.Duration
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.SysProcAttr = bb.attr()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				before, start := minorFaults(), time.Now()
				touchPages(buf)
				rewrite += time.Since(start)
				faults += minorFaults() - before
			}
			b.ReportMetric(float64(faults)/float64(b.N), "rewrite-faults/op")
			b.ReportMetric(float64(rewrite.Nanoseconds())/float64(b.N)/rewritePages, "rewrite-ns/page")
		})
	}
}

// rewritePages is how many pages BenchmarkRewriteAfterSpawn rewrites: about
// what a one-shot turn writes after its shell call.
const rewritePages = 200

func touchPages(buf []byte) {
	for i := 0; i < len(buf); i += os.Getpagesize() {
		buf[i]++
	}
}

func minorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}
