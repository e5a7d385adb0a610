package mcpclient

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// TestTrustStoreSurvivesKill: a process approving servers in a loop is
// SIGKILLed at random points; the trust store always reads as a complete
// file that keeps every approval completed before the kill, and the next
// write sweeps the temporary files the kills left.
func TestTrustStoreSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	p := filepath.Join(dir, "mcp_trust.json")
	hash := strings.Repeat("ab", 16<<10)
	atomicfiletest.Child(t, func(i int) {
		if err := OpenTrustStore(p).Approve("srv"+strconv.Itoa(i), hash); err != nil {
			panic(err)
		}
	})
	if err := OpenTrustStore(p).Approve("srv0", hash); err != nil {
		t.Fatal(err)
	}
	most := 0
	atomicfiletest.Kill(t, dir, 15, func(t *testing.T) {
		s := OpenTrustStore(p)
		f, err := s.read()
		if err != nil {
			t.Fatalf("the trust store does not read after a kill: %v", err)
		}
		if len(f.Servers) < most {
			t.Fatalf("%d approvals after a kill, %d before: a completed write was lost", len(f.Servers), most)
		}
		most = len(f.Servers)
		if v, _, err := s.Check("srv0", hash); err != nil || v != Trusted {
			t.Fatalf("srv0 after a kill: %v, %v", v, err)
		}
		entries, _ := os.ReadDir(dir)
		old := time.Now().Add(-time.Hour)
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				os.Chtimes(filepath.Join(dir, e.Name()), old, old)
			}
		}
		if err := s.Approve("srv0", hash); err != nil {
			t.Fatal(err)
		}
		atomicfiletest.NoTemp(t, dir)
	})
	if most < 2 {
		t.Fatal("no child ever completed an approval")
	}
}
