package helper

import (
	"testing"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
)

// Entry compares argv[2] with entryMarker and unshares entryFlags: they
// must be what the sandbox sends and every command's namespaces.
func TestEntryReadsWhatTheSandboxSends(t *testing.T) {
	if got := string(entryMarker[:]); got != confine.UnshareArg+"\x00" {
		t.Errorf("entryMarker = %q, want %q and a NUL", got, confine.UnshareArg)
	}
	if entryFlags != confine.CloneFlags {
		t.Errorf("entryFlags = %#x, want confine.CloneFlags %#x", entryFlags, confine.CloneFlags)
	}
}

// A helper started without the marker (this test binary, its entry point
// the usual one) reports that Entry did nothing.
func TestEntryDidNothingHere(t *testing.T) {
	if e := entry(); e.Ran {
		t.Errorf("entry() = %+v in a process Entry never ran in", e)
	}
}
