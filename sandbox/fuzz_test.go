package sandbox

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FuzzScreenerCheck: no command line, however malformed, panics the
// screen, and allowlist mode never admits a second-command construct.
func FuzzScreenerCheck(f *testing.F) {
	if fh, err := os.Open("testdata/shell_corpus.tsv"); err == nil {
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) == 4 {
				if c, err := strconv.Unquote(cols[2]); err == nil {
					f.Add(c)
				}
			}
		}
		fh.Close()
	}
	deny, _ := NewScreener(&ScreenOptions{Mode: ScreenDenylist, Workspace: "/ws"})
	allow, _ := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Workspace: "/ws"})
	f.Fuzz(func(t *testing.T, cmd string) {
		deny.Check(cmd, "/ws")
		if allow.Check(cmd, "/ws") == nil {
			for _, m := range secondCommand {
				if strings.Contains(cmd, m) {
					t.Fatalf("allowlist admitted %q containing %q", cmd, m)
				}
			}
		}
	})
}
