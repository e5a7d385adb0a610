//go:build unix

package tools

import (
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesSpecialFiles: a FIFO, a socket and a device in the
// workspace are refused at once, never read or waited on.
func TestReadRefusesSpecialFiles(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(f.ws, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := []string{"fifo", "sock"}
	// A character device (1,3 is /dev/null). Creating one needs
	// CAP_MKNOD and a filesystem mounted without nodev.
	if err := syscall.Mknod(filepath.Join(f.ws, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err == nil {
		cases = append(cases, "null")
	} else {
		t.Logf("device case not run: mknod: %v (needs root and a filesystem without nodev)", err)
	}
	f.write(t, "ok.txt", "needle\n")
	for _, name := range cases {
		for _, tool := range []string{"read_file", "edit_file"} {
			done := make(chan error, 1)
			go func() {
				_, err := f.run(t, tool, args{"path": name, "old_text": "a", "new_text": "b"})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%s %s: %v", tool, name, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s %s blocked", tool, name)
			}
		}
	}
	done := make(chan string, 1)
	go func() { done <- f.mustRun(t, "grep", args{"pattern": "needle"}) }()
	select {
	case out := <-done:
		if !strings.Contains(out, "ok.txt:1: needle") {
			t.Fatalf("grep: %q", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("grep blocked on the FIFO")
	}
}
