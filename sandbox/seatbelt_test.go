package sandbox

import (
	"strings"
	"testing"
)

func TestSeatbeltProfile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		p       Policy
		want    []string
		notWant []string
	}{
		{
			name: "network denied",
			p:    Policy{Workspace: "/Users/me/ws", ReadWrite: []string{"/Users/me/Library/Caches"}},
			want: []string{"(version 1)\n(deny default)\n", `(subpath "/Users/me/ws")`, `(subpath "/private/tmp/t1")`,
				`(subpath "/Users/me/Library/Caches")`, "(deny network*)", `(global-name "com.apple.system.logger")`},
			notWant: []string{"(allow network-outbound)", "com.apple.dnssd.service", "(allow mach-lookup)\n"},
		},
		{
			name:    "network allowed",
			p:       Policy{Workspace: "/ws", AllowNetwork: true},
			want:    []string{"(allow network-outbound)", `(global-name "com.apple.dnssd.service")`},
			notWant: []string{"(deny network*)"},
		},
		{
			name: "quote in a path cannot add rules",
			p:    Policy{Workspace: `/ws/a") (allow default) ("`},
			want: []string{`(subpath "/ws/a\") (allow default) (\"")`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prof, err := SeatbeltProfile(&tt.p, "/private/tmp/t1")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(prof, w) {
					t.Errorf("profile lacks %q:\n%s", w, prof)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(prof, w) {
					t.Errorf("profile has %q:\n%s", w, prof)
				}
			}
			// mach-lookup is granted only by service name, never wholesale.
			for _, line := range strings.Split(prof, "\n") {
				if strings.TrimSpace(line) == "(allow mach-lookup)" {
					t.Fatalf("blanket mach-lookup grant in profile")
				}
			}
		})
	}
	if _, err := SeatbeltProfile(&Policy{Workspace: "relative"}, "/tmp/x"); err == nil {
		t.Fatal("relative path accepted")
	}
	if _, err := SeatbeltProfile(&Policy{Workspace: "/ws\n(allow default)"}, "/tmp/x"); err == nil {
		t.Fatal("newline in path accepted")
	}
}
