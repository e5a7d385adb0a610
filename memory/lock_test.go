package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestLockSerializes(t *testing.T) {
	var s Store // Lock needs no directory
	const goroutines = 32
	const iterations = 200
	counter := 0 // deliberately unsynchronized except by s.Lock
	inside := 0
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range iterations {
				unlock := lockTurn(&s, "telegram:1")
				inside++
				if inside != 1 {
					t.Errorf("%d holders inside the lock", inside)
				}
				v := counter
				if v%50 == 0 {
					time.Sleep(time.Microsecond) // widen the window a race would need
				}
				counter = v + 1
				inside--
				unlock()
			}
		}()
	}
	wg.Wait()
	if counter != goroutines*iterations {
		t.Errorf("counter = %d, want %d", counter, goroutines*iterations)
	}
	if n := s.turns.len(); n != 0 {
		t.Errorf("lock map holds %d entries after all unlocks", n)
	}
}

func TestLockIndependentKeys(t *testing.T) {
	var s Store
	unlockA := lockTurn(&s, "api:a")
	done := make(chan struct{})
	go func() {
		unlockB := lockTurn(&s, "api:b") // must not wait for api:a
		unlockB()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("lock on one key blocked another key")
	}
	unlockA()
	unlockA() // a second call is harmless
	if n := s.turns.len(); n != 0 {
		t.Errorf("lock map holds %d entries", n)
	}
}

func TestLockMapShrinks(t *testing.T) {
	var s Store
	var unlocks []func()
	for i := range 100 {
		unlocks = append(unlocks, lockTurn(&s, fmt.Sprint("api:", i)))
	}
	if n := s.turns.len(); n != 100 {
		t.Fatalf("lock map holds %d entries, want 100", n)
	}
	// A waiter keeps an entry alive after its holder leaves.
	acquired := make(chan func())
	go func() { acquired <- lockTurn(&s, "api:0") }()
	waitFor(t, func() bool {
		s.turns.mu.Lock()
		defer s.turns.mu.Unlock()
		return s.turns.entries["api:0"].refs == 2
	})
	for _, u := range unlocks {
		u()
	}
	u := <-acquired
	if n := s.turns.len(); n != 1 {
		t.Errorf("lock map holds %d entries while one is held, want 1", n)
	}
	u()
	if n := s.turns.len(); n != 0 {
		t.Errorf("lock map holds %d entries after all unlocks", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

// A turn reads its session's sidecar and a session that may not exist yet
// while its own staged write holds the session's lock: neither read may
// wait for that lock.
func TestReadsDoNotWaitForAWriter(t *testing.T) {
	s := newTestStore(t)
	const key = "api:reader"
	if err := s.UpdateMeta(key, func(m *Meta) { m.ModelOverride = "m1" }); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	done := make(chan error, 1)
	go func() {
		m, err := s.LoadMeta(key)
		if err == nil && m.ModelOverride != "m1" {
			err = fmt.Errorf("LoadMeta model = %q, want m1", m.ModelOverride)
		}
		if err == nil {
			var sess *Session
			sess, err = s.Load("api:not-yet")
			if err == nil && len(sess.Messages) != 0 {
				err = fmt.Errorf("Load of a missing session = %d messages", len(sess.Messages))
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadMeta or Load of a missing session waited for the session's writer lock")
	}
}

// lockTurn takes s.Lock without a deadline; it cannot fail for the zero
// Store, so a failure is a bug worth a panic.
func lockTurn(s *Store, key string) (unlock func()) {
	unlock, err := s.Lock(context.Background(), key)
	if err != nil {
		panic(err)
	}
	return unlock
}

// TestLockGivesUpWithContext: a turn waiting for another turn of its
// session ends when its context does, holding nothing, both behind a
// holder in this process and behind one in another process.
func TestLockGivesUpWithContext(t *testing.T) {
	s := newTestStore(t)
	const key = "cli:wait"
	unlock := lockTurn(s, key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock behind a holder in this process = %v, want the deadline", err)
	}
	unlock()

	// Another Store on the same directory stands for another process:
	// only the lock file is shared.
	other, err := NewStore(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	unlock = lockTurn(other, key)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if _, err := s.Lock(ctx2, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock behind a holder on the lock file = %v, want the deadline", err)
	}
	unlock()
	lockTurn(s, key)()
	if n := s.turns.len(); n != 0 {
		t.Errorf("lock map holds %d entries after a failed wait", n)
	}
}
