package memory

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// A finished turn's count is kept in memory, not written as a new sidecar
// file per turn; this Store sees it at once, another process once it is
// written with the session's next other change, a full batch, or
// FlushMeta.
func TestTurnCountsAreBatched(t *testing.T) {
	dir := t.TempDir()
	s := mustStore(t, dir)
	const key = "api:x"
	turn := func(m *Meta) { m.Turns++ }
	for range 3 {
		if err := s.UpdateMeta(key, turn); err != nil {
			t.Fatal(err)
		}
	}
	path, _ := s.MetaPath(key)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("three turns wrote the sidecar (%v)", err)
	}
	turns := func(st *Store) int {
		t.Helper()
		m, err := st.LoadMeta(key)
		if err != nil {
			t.Fatal(err)
		}
		return m.Turns
	}
	if n := turns(s); n != 3 {
		t.Fatalf("this Store counts %d turns, want 3", n)
	}
	// Another change writes the pending turns with it.
	if err := s.UpdateMeta(key, func(m *Meta) { m.ModelOverride = "other-model" }); err != nil {
		t.Fatal(err)
	}
	if n := turns(mustStore(t, dir)); n != 3 {
		t.Fatalf("another process sees %d turns after a model change, want 3", n)
	}
	for range 2 {
		if err := s.UpdateMeta(key, turn); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := turns(s), turns(mustStore(t, dir)); a != 5 || b != 3 {
		t.Fatalf("counts %d here and %d elsewhere, want 5 and 3", a, b)
	}
	if err := s.FlushMeta(); err != nil {
		t.Fatal(err)
	}
	other := mustStore(t, dir)
	if n := turns(other); n != 5 {
		t.Fatalf("after FlushMeta another process sees %d turns, want 5", n)
	}
	m, _ := other.LoadMeta(key)
	if m.ModelOverride != "other-model" {
		t.Fatalf("the model choice was lost: %+v", m)
	}
	// A full batch is written without a flush.
	for range MetaTurnsBatch {
		if err := s.UpdateMeta(key, turn); err != nil {
			t.Fatal(err)
		}
	}
	if n := turns(mustStore(t, dir)); n != 5+MetaTurnsBatch {
		t.Fatalf("after a full batch another process sees %d turns, want %d", n, 5+MetaTurnsBatch)
	}
	// Removing the session forgets its pending turns.
	if err := s.UpdateMeta(key, turn); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(key); err != nil {
		t.Fatal(err)
	}
	if n := turns(s); n != 0 {
		t.Fatalf("a removed session still counts %d turns", n)
	}
}

// A sidecar that holds nothing but the turn count is written without a
// sync (a crash can cost only the count); one that holds a choice of the
// user's (a model) is synced, also when only turns are added to it.
func TestTurnCountOnlySidecarIsNotSynced(t *testing.T) {
	s := mustStore(t, t.TempDir())
	var synced []string
	s.synced = func(p string) { synced = append(synced, p) }
	turn := func(m *Meta) { m.Turns++ }
	if err := s.UpdateMeta("cli:a", turn); err != nil {
		t.Fatal(err)
	}
	if err := s.FlushMeta(); err != nil {
		t.Fatal(err)
	}
	if m, _ := mustStore(t, s.dir).LoadMeta("cli:a"); m.Turns != 1 {
		t.Fatalf("another process sees %d turns, want 1", m.Turns)
	}
	if len(synced) != 0 {
		t.Fatalf("a count-only sidecar was synced: %v", synced)
	}
	if err := s.UpdateMeta("cli:b", func(m *Meta) { m.ModelOverride = "m" }); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateMeta("cli:b", turn); err != nil {
		t.Fatal(err)
	}
	if err := s.FlushMeta(); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 {
		t.Fatalf("synced %v, want the model choice and the flush of the sidecar that holds it", synced)
	}
}
