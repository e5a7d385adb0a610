package sandbox

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// configKey matches what a program's configuration key looks like
// (tools.shell_allow, agents.defaults.model): a library error never names one.
var configKey = regexp.MustCompile(`\b(tools|agents|providers|channels|mcp|api)\.[a-z_]+`)

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
		{"cannot deny network", Report{Mechanism: "landlock", LandlockABI: 3, Available: true}, Policy{Workspace: ws}, false},
		{"cannot deny network, network allowed", Report{Mechanism: "landlock", LandlockABI: 3, Available: true}, Policy{Workspace: ws, AllowNetwork: true}, true},
		{"missing layer", Report{Platform: "linux", Reason: "namespaces: user.max_user_namespaces is 0"}, Policy{Workspace: ws, AllowNetwork: true}, false},
		{"every layer", Report{Mechanism: "namespaces+seccomp+landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, Policy{Workspace: ws}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := probe
			probe = func() Report { return tt.rep }
			defer func() { probe = old }()
			sb, err := New(&tt.policy, nil)
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

// TestNetworkUndeniableSpeaksTheAPI: the refusal on a kernel that cannot
// deny the network is recognisable with errors.Is and names the Policy
// field to change, never a setting of a program that imports the package.
func TestNetworkUndeniableSpeaksTheAPI(t *testing.T) {
	old := probe
	probe = func() Report { return Report{Mechanism: "landlock", LandlockABI: 3, Available: true} }
	defer func() { probe = old }()
	_, err := New(&Policy{Workspace: t.TempDir()}, &Options{Helper: "/bin/true"})
	if !errors.Is(err, ErrNetworkUndeniable) || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrNetworkUndeniable and ErrUnsupported", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "Policy.AllowNetwork") || configKey.MatchString(msg) {
		t.Fatalf("err = %q, want it to name Policy.AllowNetwork and no config key", msg)
	}
}
