package gateway

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/providers/providertest"
)

const fullDiskEnv = "JOSHBOT_GATEWAY_FULLDISK_DIR"

// TestGatewayOnARealFullDisk runs TestGatewayOnARealFullDiskChild in a
// private mount namespace with the gateway's home on a small tmpfs (root
// only): the disk-full case of TestGatewayDiskFullDeliversAndTellsOnce
// without a seam, where the inbox cannot record the messages either.
func TestGatewayOnARealFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o size=2m tmpfs "$`+fullDiskEnv+`" && exec "$0" -test.run='^TestGatewayOnARealFullDiskChild$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestGatewayOnARealFullDiskChild")) {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestGatewayOnARealFullDiskChild is the child of TestGatewayOnARealFullDisk.
func TestGatewayOnARealFullDiskChild(t *testing.T) {
	home := os.Getenv(fullDiskEnv)
	if home == "" {
		t.Skip("run by TestGatewayOnARealFullDisk")
	}
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("one"), providertest.Text("two"), providertest.Text("three"), providertest.Text("four"))
	cfg, err := os.ReadFile(gatewayConfig(t, srv, "42"))
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(home, "config.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	f := channeltest.NewFakeNamed("telegram")
	var logs bytes.Buffer
	stop := runGateway(t, cfgPath, &logs, f)
	finals := func(r channeltest.Record) []string {
		var out []string
		for _, s := range r.Streams {
			if s.Finished {
				out = append(out, s.Final)
			}
		}
		return out
	}
	ask := func(id string, n int, pad int) []string {
		t.Helper()
		f.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "q" + id + strings.Repeat(".", pad), MessageID: id, IsDirect: true})
		return finals(f.Await(t, "answer "+id, func(r channeltest.Record) bool { return len(finals(r)) >= n }))
	}
	ask("1", 1, 0)
	filler, err := os.Create(filepath.Join(home, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	// The gateway frees a page now and then (a temp file it could not
	// finish, a settled record), so a filler that stopped at the first
	// ENOSPC would let a later save through by chance: keep taking every
	// page that comes free until the disk is cleared.
	stopFill, filled := make(chan struct{}), make(chan struct{})
	full := make(chan struct{})
	go func() {
		defer close(filled)
		chunk, once := make([]byte, 4096), false
		for {
			if _, err := filler.Write(chunk); err != nil {
				if !once {
					once = true
					close(full)
				}
				select {
				case <-stopFill:
					return
				case <-time.After(100 * time.Microsecond):
				}
			}
		}
	}()
	<-full
	// A save that only adds lines appends them to the session file, which
	// succeeds on a full disk when they fit in its last page; a question
	// of two pages makes sure the save needs pages the disk has not got.
	ask("2", 2, 8192)
	ask("3", 3, 0)
	close(stopFill)
	<-filled
	filler.Close()
	os.Remove(filler.Name())
	got := ask("4", 4, 0)
	out := stop()
	want := []string{"one", "two", "three", "four"}
	for i, a := range got {
		if !strings.HasPrefix(a, want[i]) {
			t.Errorf("answer %d = %q, want %q first", i+1, a, want[i])
		}
		if full := strings.Contains(a, "the disk is full"); full != (i == 1) {
			t.Errorf("answer %d = %q: only the first answer on the full disk says it was not saved", i+1, a)
		}
	}
	if refused := f.Record().Refused; refused != 0 {
		t.Errorf("%d deliveries were refused (redelivered) on the full disk", refused)
	}
	t.Logf("gateway log:\n%s", out)
}
