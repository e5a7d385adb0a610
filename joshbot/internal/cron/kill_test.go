package cron

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
	"github.com/joshbot/joshbot/tools"
)

// TestStoreSurvivesKill: a process adding reminders in a loop is
// SIGKILLed at random points; the store always opens with a complete list
// (every job intact), and the next OpenStore sweeps the temporary files
// the kills left.
func TestStoreSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	p := filepath.Join(dir, "cron.json")
	body := strings.Repeat("x", 8<<10)
	atomicfiletest.Child(t, func(i int) {
		s, err := OpenStore(p)
		if err != nil {
			panic(err)
		}
		if _, err := s.Add(context.Background(), tools.CronJob{Message: strconv.Itoa(i) + body, SessionKey: "telegram:1", Channel: "telegram", Next: time.Now().Add(time.Hour)}); err != nil {
			panic(err)
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
		s, err := OpenStore(p)
		if err != nil {
			t.Fatalf("the store does not open after a kill: %v", err)
		}
		jobs, err := s.List(context.Background(), "telegram:1")
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) < most {
			t.Fatalf("%d jobs after a kill, %d before: a completed save was lost", len(jobs), most)
		}
		most = len(jobs)
		for _, j := range jobs {
			if !strings.HasSuffix(j.Message, body) {
				t.Fatalf("torn job %q", j.Message[:min(len(j.Message), 20)])
			}
		}
		atomicfiletest.NoTemp(t, dir)
	})
	if most == 0 {
		t.Fatal("no child ever completed a save")
	}
}
