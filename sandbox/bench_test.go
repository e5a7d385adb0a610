package sandbox

import "testing"

func BenchmarkScreenerCheck(b *testing.B) {
	for _, bb := range []struct {
		name string
		mode ScreenMode
		cmd  string
	}{
		{"denylist", ScreenDenylist, `go test ./... 2>&1 | tail -20 && echo "done $(date +%F)" > log/last.txt`},
		{"allowlist", ScreenAllowlist, `grep -rn 'func main' ./cmd`},
	} {
		s, err := NewScreener(&ScreenOptions{Mode: bb.mode, Workspace: "/ws"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Check(bb.cmd, "/ws"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
