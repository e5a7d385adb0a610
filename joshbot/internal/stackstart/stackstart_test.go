package stackstart

import (
	"testing"
	"unsafe"
)

// stackMoved reports whether the stack of the calling goroutine was
// copied (grown) while f ran: a copy moves every local, so the address of
// one read before and after differs.
//
//go:noinline
func stackMoved(f func()) bool {
	var local byte
	before := uintptr(unsafe.Pointer(&local))
	f()
	return uintptr(unsafe.Pointer(&local)) != before
}

// recurse uses about n KiB of stack.
//
//go:noinline
func recurse(n int) byte {
	var pad [1000]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return recurse(n-1) + pad[n%len(pad)]
}

// TestGrowMakesRoomOnce runs on a fresh goroutine, whose stack is as small
// as the main goroutine's at start: grow must move it, and then 100 KiB of
// recursion (what goldmark's initialisers need is between 64 and 128 KiB)
// must not move it again.
func TestGrowMakesRoomOnce(t *testing.T) {
	type result struct{ grew, grewAgain bool }
	done := make(chan result)
	go func() {
		var r result
		r.grew = stackMoved(grow)
		r.grewAgain = stackMoved(func() { recurse(100) })
		done <- r
	}()
	r := <-done
	if !r.grew {
		t.Fatal("grow did not grow a fresh goroutine's stack")
	}
	if r.grewAgain {
		t.Fatal("after grow, 100 KiB of recursion grew the stack again: grow's frame no longer makes it 128 KiB")
	}
}

// TestWithoutGrowTheStackGrows checks that the test above can fail: the
// same recursion on a fresh goroutine without grow does move its stack.
func TestWithoutGrowTheStackGrows(t *testing.T) {
	done := make(chan bool)
	go func() { done <- stackMoved(func() { recurse(100) }) }()
	if !<-done {
		t.Fatal("100 KiB of recursion did not grow a fresh goroutine's stack: stackMoved proves nothing")
	}
}
