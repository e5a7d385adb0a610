package footprint

import (
	"context"
	"testing"
	"time"
)

// releases returns an Idler whose release function reports on a channel.
func releases(startup, quiet time.Duration) (*Idler, <-chan struct{}) {
	ch := make(chan struct{}, 16)
	return NewIdler(startup, quiet, func() { ch <- struct{}{} }), ch
}

func expectRelease(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("no release %s", what)
	}
}

func expectNone(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("released %s", what)
	case <-time.After(d):
	}
}

func TestIdlerReleasesAfterStartupAndAfterWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id, ch := releases(10*time.Millisecond, 40*time.Millisecond)
	go id.Run(ctx)
	expectRelease(t, ch, "after start-up")
	expectNone(t, ch, 150*time.Millisecond, "again with no work since")

	done := id.Busy()
	expectNone(t, ch, 150*time.Millisecond, "while work is in flight")
	done()
	done() // a second call is harmless
	expectRelease(t, ch, "after the work's quiet period")
	expectNone(t, ch, 150*time.Millisecond, "twice for one spell of work")
}

func TestIdlerWaitsForTheLastOfOverlappingWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id, ch := releases(10*time.Millisecond, 30*time.Millisecond)
	a := id.Busy() // in flight before start-up settles: no start-up release
	go id.Run(ctx)
	b := id.Busy()
	a()
	expectNone(t, ch, 150*time.Millisecond, "while the second piece of work runs")
	b()
	expectRelease(t, ch, "after both pieces of work ended")
}

func TestIdlerQuietPeriodRestartsWithNewWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id, ch := releases(time.Millisecond, 200*time.Millisecond)
	go id.Run(ctx)
	expectRelease(t, ch, "after start-up")
	id.Busy()()
	// Keep ending work more often than the quiet period: no release.
	for range 5 {
		time.Sleep(60 * time.Millisecond)
		id.Busy()()
	}
	select {
	case <-ch:
		t.Fatal("released before a full quiet period passed")
	default:
	}
	expectRelease(t, ch, "once the work stopped")
}

func TestIdlerStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	id, ch := releases(time.Hour, time.Hour)
	stopped := make(chan struct{})
	go func() { id.Run(ctx); close(stopped) }()
	cancel()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
	expectNone(t, ch, 10*time.Millisecond, "after the context ended")
}
