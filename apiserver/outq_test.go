package apiserver

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestPushLetsTheWaitingWriterRunFirst: on a single processor, a frame
// pushed while the writer waits is taken by the writer before push
// returns, rather than after the turn next blocks. The scheduler checks
// its global queue first now and then (one schedule in 61), so the test
// asks for most trials, not all; without the yield none passes.
func TestPushLetsTheWaitingWriterRunFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const trials = 20
	first := 0
	for range trials {
		q := newOutq(0)
		var took atomic.Bool
		parked := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			close(parked)
			if _, ok := q.pop(); ok {
				took.Store(true)
			}
			for _, ok := q.pop(); ok; _, ok = q.pop() {
			}
		}()
		<-parked
		// Let the writer reach its wait on the queue.
		for range 3 {
			runtime.Gosched()
		}
		q.push([]byte("data: x\n\n"))
		if took.Load() {
			first++
		}
		q.close()
		<-done
	}
	if first < trials*3/4 {
		t.Fatalf("the writer took the frame before push returned in %d of %d trials", first, trials)
	}
}
