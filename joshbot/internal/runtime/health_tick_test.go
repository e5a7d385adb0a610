package runtime

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
)

// A quiet tick of the health file (nothing recorded since the last one,
// no cooldown ending) reads nothing and allocates nothing: an idle daemon
// runs one every few seconds, and each used to snapshot the table and
// compare it by reflection, bringing that code back into memory. A
// failure, and later the end of its cooldown, still rewrite the file.
func TestHealthTickIsFreeWhenNothingChanged(t *testing.T) {
	home := t.TempDir()
	var mu sync.Mutex
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	rt := &Runtime{Health: providers.NewHealth(clock), Logger: slog.New(slog.DiscardHandler)}
	w := rt.newHealthWriter(home, clock)
	w.tick()
	path := filepath.Join(home, HealthFile)
	if doc, err := ReadHealth(home); err != nil || len(doc.Providers) != 0 {
		t.Fatalf("first write: %+v %v", doc, err)
	}
	if n := testing.AllocsPerRun(100, w.tick); n != 0 {
		t.Errorf("a quiet tick allocates %v times; it should only check that nothing changed", n)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	w.tick()
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a quiet tick rewrote the file")
	}

	rt.Health.Failure("groq", errors.New("HTTP 429: slow down"), time.Minute)
	w.tick()
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"groq"`) || !strings.Contains(string(b), "12:01:00Z") {
		t.Fatalf("after a failure the file reads %s (%v)", b, err)
	}
	advance(30 * time.Second)
	w.tick() // still cooling: nothing to write
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Fatalf("rewritten while nothing changed: %s", b2)
	}
	rt.Health.Success("groq")
	w.tick()
	if doc, err := ReadHealth(home); err != nil || len(doc.Providers) != 0 {
		t.Fatalf("after a success: %+v %v", doc, err)
	}

	// A cooldown that ends is a change of the table without a record: the
	// tick after its end rewrites the file (the provider keeps its failure
	// count, so it stays listed, no longer cooling).
	rt.Health.Failure("groq", errors.New("HTTP 500"), time.Minute)
	w.tick()
	if doc, _ := ReadHealth(home); len(doc.Providers) != 1 || doc.Providers[0].CoolingUntil == "" {
		t.Fatalf("cooling entry missing: %+v", doc)
	}
	advance(2 * time.Minute)
	w.tick()
	if doc, _ := ReadHealth(home); len(doc.Providers) != 1 || doc.Providers[0].CoolingUntil != "" {
		t.Fatalf("after the cooldown ended the file still reads %+v", doc)
	}
}
