package channels_test

import (
	"testing"

	"github.com/joshbot/joshbot/channels"
)

func TestDecisionZeroValueDeniesAndNamesItself(t *testing.T) {
	var zero channels.Decision
	if zero != channels.DecisionDeny {
		t.Fatalf("the zero Decision is %v, want a denial: anything but an explicit yes must deny", zero)
	}
	for _, tt := range []struct {
		d    channels.Decision
		want string
	}{
		{channels.DecisionDeny, "denied"},
		{channels.DecisionAllow, "allowed"},
		{channels.DecisionAllowSession, "allowed for this session"},
		{channels.Decision(42), "denied"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("Decision(%d).String() = %q, want %q", int(tt.d), got, tt.want)
		}
	}
}
