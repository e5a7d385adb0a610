package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// TestSaveSurvivesKill: a process saving the config in a loop is
// SIGKILLed at random points; the file always loads as one complete
// version, and the next Load sweeps the temporary files the kills left.
func TestSaveSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	p := filepath.Join(dir, "config.json")
	save := func(i int) {
		cfg := Defaults()
		cfg.Agents.Defaults.Provider = "ollama"
		// A long model name makes each save several writes.
		cfg.Agents.Defaults.Model = strings.Repeat(string(rune('a'+i%26)), 64<<10)
		if err := Save(p, cfg); err != nil {
			panic(err)
		}
	}
	atomicfiletest.Child(t, save)
	save(0)
	advanced := false
	atomicfiletest.Kill(t, dir, 15, func(t *testing.T) {
		entries, _ := os.ReadDir(dir)
		old := time.Now().Add(-time.Hour)
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				os.Chtimes(filepath.Join(dir, e.Name()), old, old)
			}
		}
		cfg, err := Load(p)
		if err != nil {
			t.Fatalf("the config does not load after a kill: %v", err)
		}
		m := cfg.Agents.Defaults.Model
		if len(m) != 64<<10 || strings.Trim(m, m[:1]) != "" {
			t.Fatalf("torn config: model of %d bytes", len(m))
		}
		atomicfiletest.NoTemp(t, dir)
		advanced = advanced || m[0] != 'a'
	})
	if !advanced {
		t.Fatal("no child ever completed a save")
	}
}
