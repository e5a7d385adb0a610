package providers

import (
	"errors"
	"testing"
	"time"
)

// Changes moves with every failure recorded and every record a success
// clears, and not for a success of a provider with nothing on record.
func TestHealthChangesCountsRecordChanges(t *testing.T) {
	h := NewHealth(nil)
	if h.Changes() != 0 {
		t.Fatalf("a new table has %d changes", h.Changes())
	}
	h.Success("a")
	if h.Changes() != 0 {
		t.Fatalf("a success with nothing on record counted: %d", h.Changes())
	}
	h.Failure("a", errors.New("HTTP 500"), 0)
	h.Failure("a", errors.New("HTTP 500"), time.Minute)
	if h.Changes() != 2 {
		t.Fatalf("two failures counted %d", h.Changes())
	}
	h.Success("a")
	if h.Changes() != 3 {
		t.Fatalf("clearing a record counted %d, want 3", h.Changes())
	}
	h.Success("a")
	if h.Changes() != 3 {
		t.Fatalf("a second success counted: %d", h.Changes())
	}
}
