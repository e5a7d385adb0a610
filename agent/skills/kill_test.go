package skills_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent/skills"
	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// TestTrustStoreSurvivesKill: a process writing and trusting skills in a
// loop is SIGKILLed at random points; the skills trust store always
// parses (an unreadable one would untrust every skill), keeps every trust
// completed before the kill, and the next write sweeps the temporary
// files the kills left.
func TestTrustStoreSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	trustPath := filepath.Join(home, "skills_trust.json")
	open := func() *skills.Library {
		lib, err := skills.Open(ws, trustPath)
		if err != nil {
			panic(err)
		}
		return lib
	}
	add := func(lib *skills.Library, i int) error {
		name := "s" + strconv.Itoa(i)
		if _, err := lib.Write(name, "---\nname: "+name+"\ndescription: d\n---\nbody\n"); err != nil {
			return err
		}
		_, err := lib.Trust(name)
		return err
	}
	atomicfiletest.Child(t, func(i int) {
		if err := add(open(), i); err != nil {
			panic(err)
		}
	})
	if err := add(open(), 0); err != nil {
		t.Fatal(err)
	}
	most := 0
	atomicfiletest.Kill(t, dir, 15, func(t *testing.T) {
		b, err := os.ReadFile(trustPath)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range b {
			if c == ':' {
				n++
			}
		}
		lib := open()
		// A write through the library must work, and sweeps old temps.
		for _, d := range []string{home, filepath.Join(ws, "skills")} {
			entries, _ := os.ReadDir(d)
			old := time.Now().Add(-time.Hour)
			for _, e := range entries {
				if atomicfile.IsTemp(e.Name()) {
					os.Chtimes(filepath.Join(d, e.Name()), old, old)
				}
			}
		}
		if err := lib.Untrust("s0"); err != nil {
			t.Fatalf("the trust store after a kill: %v", err)
		}
		if _, err := lib.Trust("s0"); err != nil {
			t.Fatal(err)
		}
		if n < most {
			t.Fatalf("%d trusted skills after a kill, %d before: a completed trust was lost", n, most)
		}
		most = n
		atomicfiletest.NoTemp(t, home)
	})
	if most < 2 {
		t.Fatal("no child ever completed a trust")
	}
}
