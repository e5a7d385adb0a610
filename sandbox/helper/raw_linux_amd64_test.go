package helper

import (
	"testing"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// TestRawLandlockABIs: the raw helper handles, for each Landlock ABI, the
// rights and scopes go-landlock's configuration for it handles, which the
// Go helper restricts with.
func TestRawLandlockABIs(t *testing.T) {
	cfgs := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	if len(rawLandlockABIs) != len(cfgs)+1 {
		t.Fatalf("the raw helper knows ABIs up to %d, go-landlock up to %d", len(rawLandlockABIs)-1, len(cfgs))
	}
	for i, c := range cfgs {
		want := [3]uint64{uint64(c.HandledAccessFS), uint64(c.HandledAccessNet), uint64(c.Scoped)}
		if got := rawLandlockABIs[i+1]; got != want {
			t.Errorf("ABI %d: raw helper %x, go-landlock %x", i+1, got, want)
		}
	}
}
