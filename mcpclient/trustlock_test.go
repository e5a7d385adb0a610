package mcpclient

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// approveMany is the "approve" test mode: it approves MCPTEST_N servers
// named MCPTEST_PREFIX<i> in the store at MCPTEST_TRUST, one write each.
func approveMany() int {
	n, _ := strconv.Atoi(os.Getenv("MCPTEST_N"))
	s := OpenTrustStore(os.Getenv("MCPTEST_TRUST"))
	for i := 0; i < n; i++ {
		if err := s.Approve(fmt.Sprintf("%s%d", os.Getenv("MCPTEST_PREFIX"), i), "hash"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestTrustStoreWritesAcrossProcesses: two processes approving different
// servers into one store at the same time both keep every approval; the
// read-modify-write is held under a lock beside the file.
func TestTrustStoreWritesAcrossProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.trust")
	const n = 60
	var cmds []*exec.Cmd
	for _, prefix := range []string{"a", "b"} {
		c := exec.Command(exe)
		c.Env = append(os.Environ(), modeEnv+"=approve", "MCPTEST_TRUST="+path, "MCPTEST_N="+strconv.Itoa(n), "MCPTEST_PREFIX="+prefix)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("approving process: %v", err)
		}
	}
	s := OpenTrustStore(path)
	var lost []string
	for _, prefix := range []string{"a", "b"} {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("%s%d", prefix, i)
			if v, _, err := s.Check(name, "hash"); err != nil || v != Trusted {
				lost = append(lost, name)
			}
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d approvals lost, such as %v", len(lost), 2*n, lost[:min(len(lost), 5)])
	}
}
