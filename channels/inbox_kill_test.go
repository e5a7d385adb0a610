package channels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// TestInboxSurvivesKill: a process adding messages to the inbox and
// marking them running, in a loop, is SIGKILLed at random points; every
// record the inbox loads afterwards is whole (none is set aside as bad),
// none completed is lost, and the next open sweeps the temporary files
// the kills left.
func TestInboxSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	body := strings.Repeat("z", 32<<10)
	atomicfiletest.Child(t, func(i int) {
		b, err := openInbox(dir, time.Now)
		if err != nil {
			panic(err)
		}
		if _, _, _, err := b.load(); err != nil {
			panic(err)
		}
		e, err := b.add(Inbound{Channel: "telegram", Conversation: "1", Text: body})
		if err != nil {
			panic(err)
		}
		if i%2 == 0 {
			if err := b.start(e); err != nil {
				panic(err)
			}
		}
	})
	most := 0
	atomicfiletest.Kill(t, dir, 15, func(t *testing.T) {
		entries, _ := os.ReadDir(dir)
		old := time.Now().Add(-time.Hour)
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				os.Chtimes(filepath.Join(dir, e.Name()), old, old)
			}
		}
		b, err := openInbox(dir, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		atomicfiletest.NoTemp(t, dir)
		pending, running, bad, err := b.load()
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Fatalf("torn inbox records after a kill: %v", bad)
		}
		n := len(pending) + len(running)
		if n < most {
			t.Fatalf("%d records after a kill, %d before: a completed add was lost", n, most)
		}
		most = n
		for _, e := range append(pending, running...) {
			if e.rec.Inbound.Text != body {
				t.Fatalf("record %s is not whole", e.name)
			}
		}
	})
	if most == 0 {
		t.Fatal("no child ever completed an add")
	}
}
