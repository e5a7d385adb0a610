package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Appends that arrive while another holds the memory lock are written
// together, once, by the first of them to get it, and each caller learns
// its entry is on disk.
func TestConcurrentHistoryAppendsShareOneWrite(t *testing.T) {
	l, err := OpenLongTerm(filepath.Join(t.TempDir(), "workspace"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	l.mu.Lock() // as if an append were writing
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = l.AppendHistory(fmt.Sprintf("api:c%d", i), fmt.Sprintf("turn of chat %d", i)) })
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		l.histMu.Lock()
		queued := len(l.histPending)
		l.histMu.Unlock()
		if queued == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d appends queued", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
	l.mu.Unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if l.histBatches != 1 {
		t.Fatalf("%d writes for %d queued entries, want 1", l.histBatches, n)
	}
	data, err := os.ReadFile(l.HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if c := strings.Count(string(data), fmt.Sprintf("turn of chat %d\n", i)); c != 1 {
			t.Fatalf("entry %d written %d times:\n%s", i, c, data)
		}
	}
}

// An append that cannot take the lock reports it and leaves nothing
// queued for a later append to write behind its back.
func TestFailedHistoryAppendIsNotWrittenLater(t *testing.T) {
	l, err := OpenLongTerm(filepath.Join(t.TempDir(), "workspace"), nil)
	if err != nil {
		t.Fatal(err)
	}
	lockDir := l.lockDir
	l.lockDir = filepath.Join(t.TempDir(), "missing", "dir")
	if err := l.AppendHistory("api:a", "lost turn"); err == nil {
		t.Fatal("append without its lock succeeded")
	}
	l.lockDir = lockDir
	if err := l.AppendHistory("api:b", "kept turn"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "lost turn") || !strings.Contains(string(data), "kept turn") {
		t.Fatalf("HISTORY.md:\n%s", data)
	}
}
