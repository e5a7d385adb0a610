package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// runTurnChild plays whole turns the way the agent does: take the turn
// lock, load, stage the user's message, wait as for a model, add the
// answer, save. Its environment is that of runChild.
func runTurnChild(mode string) int {
	dir, key := os.Getenv("CHILD_DIR"), os.Getenv("CHILD_KEY")
	first, _ := strconv.Atoi(os.Getenv("CHILD_FIRST"))
	count, _ := strconv.Atoi(os.Getenv("CHILD_COUNT"))
	s, err := NewStore(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for i := first; i < first+count; i++ {
		unlock, err := s.Lock(context.Background(), key)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		sess, err := s.Load(key)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		sess.Messages = append(sess.Messages, Message{Role: "user", Content: fmt.Sprintf("turn %d from %s", i, mode)})
		if err := s.Stage(sess); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		time.Sleep(3 * time.Millisecond) // the model thinks
		sess.Messages = append(sess.Messages, Message{Role: "assistant", Content: fmt.Sprintf("reply %d", i)})
		if err := s.Save(sess); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		unlock()
	}
	return 0
}

// TestTurnLockAcrossProcesses runs whole turns (load, model, save) from
// several processes on one session: the turn lock must hold across
// processes, or a save written from an older load drops the other
// processes' turns.
func TestTurnLockAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	const key = "cli:shared"
	const children, per = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, children)
	for c := range children {
		cmd := childCmd(t, "turn"+strconv.Itoa(c), dir, key, c*1000, per)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil {
				errs <- fmt.Errorf("child %d: %w", c, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	have := turnsIn(snap.Messages)
	if lost := children*per - len(have); lost != 0 || len(snap.Messages) != 2*len(have) {
		t.Fatalf("turns lost: %d of %d (%d messages stored)", lost, children*per, len(snap.Messages))
	}
}
