package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSigRouterCancelsTheCatchingContext checks that a signal cancels the
// context catching it with signal.NotifyContext's cause, and that a later
// catch of the same signal (already registered) works too.
func TestSigRouterCancelsTheCatchingContext(t *testing.T) {
	for round := 0; round < 2; round++ {
		ctx, stop := signals.catch(context.Background(), syscall.SIGUSR2)
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: SIGUSR2 did not cancel the catching context", round)
		}
		if got, want := context.Cause(ctx).Error(), "user defined signal 2 signal received"; got != want {
			t.Errorf("round %d: cause %q, want %q", round, got, want)
		}
		stop()
		stop() // a second stop is harmless, as NotifyContext's is
	}
	// Stopping releases the context even when no signal came.
	ctx, stop := signals.catch(context.Background(), syscall.SIGUSR2)
	stop()
	if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != context.Canceled {
		t.Errorf("stopped catch: err %v, cause %v; want context.Canceled", ctx.Err(), context.Cause(ctx))
	}
}

// TestSigRouterUncaughtSignalKeepsItsDefault checks that a signal arriving
// after its catch stopped ends the process by that signal, as it would
// have had the handler been removed.
func TestSigRouterUncaughtSignalKeepsItsDefault(t *testing.T) {
	if os.Getenv("JOSHBOT_SIGROUTER_CHILD") == "1" {
		_, stop := signals.catch(context.Background(), syscall.SIGTERM)
		stop()
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(10 * time.Second)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSigRouterUncaughtSignalKeepsItsDefault$")
	cmd.Env = append(os.Environ(), "JOSHBOT_SIGROUTER_CHILD=1")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want killed by SIGTERM", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("child ended with %v, want killed by SIGTERM", ws)
	}
}

// TestSigRouterPreparedSignalKeepsItsDefaultUntilCaught checks that a
// signal registered ahead (prepare) still ends the process before any
// catch, and is caught once a catch has returned.
func TestSigRouterPreparedSignalKeepsItsDefaultUntilCaught(t *testing.T) {
	switch os.Getenv("JOSHBOT_SIGROUTER_PREPARED") {
	case "before":
		signals.prepare(syscall.SIGTERM)
		time.Sleep(50 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(10 * time.Second)
		os.Exit(0)
	case "after":
		signals.prepare(syscall.SIGUSR1)
		ctx, stop := signals.catch(context.Background(), syscall.SIGUSR1)
		defer stop()
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		select {
		case <-ctx.Done():
			os.Exit(0)
		case <-time.After(10 * time.Second):
			os.Exit(3)
		}
	}
	for _, mode := range []string{"before", "after"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSigRouterPreparedSignalKeepsItsDefaultUntilCaught$")
		cmd.Env = append(os.Environ(), "JOSHBOT_SIGROUTER_PREPARED="+mode)
		err := cmd.Run()
		if mode == "after" {
			if err != nil {
				t.Errorf("caught after prepare: child %v, want exit 0 (the catch cancelled its context)", err)
			}
			continue
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("prepared, not caught: child %v, want killed by SIGTERM", err)
		}
		if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("prepared, not caught: child ended with %v, want killed by SIGTERM", ws)
		}
	}
}

// TestOneShotRegistersSIGTERMWhileLoading checks that only a one-shot
// turn leaves its SIGTERM registration for the runtime to wait for
// (runtime.Options.BeforeStart); other commands have it done before they
// run.
func TestOneShotRegistersSIGTERMWhileLoading(t *testing.T) {
	for _, tc := range []struct {
		args []string
		soon bool
	}{
		{[]string{"agent", "-m", "hi", "--config", "/nonexistent/joshbot/config.json"}, true},
		{[]string{"sessions", "list", "--config", "/nonexistent/joshbot/config.json"}, false},
	} {
		var out strings.Builder
		a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &out, catchTerm: true}
		a.execute(context.Background(), tc.args) // fails for want of a config
		if a.stopTerm == nil {
			t.Fatalf("%v: no SIGTERM handler", tc.args)
		}
		if got := a.termCaught != nil; got != tc.soon {
			t.Errorf("%v: SIGTERM registered in the background = %v, want %v", tc.args, got, tc.soon)
		}
		if a.termCaught != nil {
			a.termCaught() // the registration finishes
		}
	}
}
