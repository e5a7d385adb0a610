package sandbox

import (
	"errors"
	"testing"
)

// TestNewFailsClosed plays systems that cannot enforce the policy: New
// must refuse rather than hand back something that runs unconfined.
func TestNewFailsClosed(t *testing.T) {
	ws := t.TempDir()
	for _, tt := range []struct {
		name   string
		rep    Report
		policy Policy
		ok     bool
	}{
		{"no sandbox at all", Report{Platform: "plan9", Reason: "none"}, Policy{Workspace: ws}, false},
		{"no sandbox, network allowed", Report{Platform: "plan9", Reason: "none"}, Policy{Workspace: ws, AllowNetwork: true}, false},
		{"old landlock cannot deny network", Report{Mechanism: "landlock", LandlockABI: 3, Available: true}, Policy{Workspace: ws}, false},
		{"old landlock with network allowed", Report{Mechanism: "landlock", LandlockABI: 3, Available: true}, Policy{Workspace: ws, AllowNetwork: true}, true},
		{"full landlock", Report{Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, Policy{Workspace: ws}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := probe
			probe = func() Report { return tt.rep }
			defer func() { probe = old }()
			sb, err := New(&tt.policy, &Options{Helper: "/bin/true"})
			if tt.ok {
				if err != nil || sb == nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnsupported) || sb != nil {
				t.Fatalf("got %v, %v; want ErrUnsupported and no sandbox", sb, err)
			}
		})
	}
}
