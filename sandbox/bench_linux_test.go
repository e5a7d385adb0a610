//go:build linux

package sandbox

import (
	"context"
	"os"
	"testing"
)

// BenchmarkConfinedTrue is the cost of one confined call: /bin/true run
// through Sandbox.Command, from Command to the end of Wait.
func BenchmarkConfinedTrue(b *testing.B) {
	if r := Probe(); !r.Available {
		b.Skipf("no sandbox here: %s", r.Reason)
	}
	for _, bb := range []struct {
		name string
		net  bool
	}{{"network denied", false}, {"network allowed", true}} {
		sb, err := New(&Policy{Workspace: b.TempDir(), AllowNetwork: bb.net}, nil)
		if err != nil {
			b.Fatal(err)
		}
		env := ChildEnv(os.Environ(), nil)
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				cmd, cleanup, err := sb.Command(context.Background(), sb.Policy().Workspace, []string{"/bin/true"}, env)
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cleanup()
			}
		})
	}
}
