package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelperPackageStaysSmall: package helper, all a dedicated helper
// links, pulls in none of the parent's machinery. Each of these would
// add its start-up to every confined command.
func TestHelperPackageStaysSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./helper").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		for _, heavy := range []string{"github.com/joshbot/joshbot/sandbox", "github.com/joshbot/joshbot/sandbox/egress", "mvdan.cc/sh/v3/syntax", "net/http", "crypto/tls"} {
			if d == heavy {
				t.Errorf("package helper links %s", d)
			}
		}
	}
	t.Logf("package helper links %d packages", len(deps))
}
