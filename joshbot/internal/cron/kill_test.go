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
		// One conversation holds at most MaxJobsPerSession jobs: move on
		// to the next once one is full.
		key := ""
		for n := 1; key == ""; n++ {
			jobs, err := s.List(context.Background(), sessionOf(n))
			if err != nil {
				panic(err)
			}
			if len(jobs) < MaxJobsPerSession {
				key = sessionOf(n)
			}
		}
		if _, err := s.Add(context.Background(), tools.CronJob{Message: strconv.Itoa(i) + body, SessionKey: key, Channel: "telegram", Next: time.Now().Add(time.Hour)}); err != nil {
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
		var jobs []tools.CronJob
		for n := 1; ; n++ {
			js, err := s.List(context.Background(), sessionOf(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(js) == 0 {
				break
			}
			jobs = append(jobs, js...)
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

// sessionOf is the n-th conversation the kill test's writer fills.
func sessionOf(n int) string { return "telegram:" + strconv.Itoa(n) }
