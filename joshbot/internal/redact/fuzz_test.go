package redact

import (
	"encoding/json"
	"testing"
)

// FuzzJSON: whatever goes in, what comes out is valid JSON.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"api_key":"x"}`, `"token=\"a\""`, `[1,"Authorization: Bearer z"]`, `{`, `nul\x00l`, "\xff"} {
		f.Add([]byte(s))
	}
	r := New("/home/josh")
	f.Fuzz(func(t *testing.T, doc []byte) {
		if out := r.JSON(doc); !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q is not valid JSON", doc, out)
		}
		r.String(string(doc))
	})
}
