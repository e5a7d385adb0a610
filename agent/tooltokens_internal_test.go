package agent

import (
	"encoding/json"
	"testing"

	"github.com/joshbot/joshbot/tools"
)

// toolTokens adds up lengths instead of encoding the definitions; on the
// real filesystem tools it stays within a tenth of the encoded size, and
// never below it by more than the escaping of a few characters.
func TestToolTokensEstimatesTheEncodedSize(t *testing.T) {
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defs := toProviderTools(reg.Definitions())
	if len(defs) < 3 {
		t.Fatalf("%d definitions", len(defs))
	}
	b, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	want := len(b) / 4
	got := toolTokens(defs)
	if got < want*95/100 || got > want*110/100 {
		t.Fatalf("toolTokens = %d, encoded size says %d", got, want)
	}
	if toolTokens(nil) != 0 {
		t.Fatal("no tools cost tokens")
	}
}

func BenchmarkToolTokens(b *testing.B) {
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, b.TempDir()); err != nil {
		b.Fatal(err)
	}
	defs := toProviderTools(reg.Definitions())
	b.ReportAllocs()
	for b.Loop() {
		toolTokens(defs)
	}
}
