package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// TestOneShotOnAFullDiskStillShowsTheAnswer runs `joshbot agent -m` with its
// home on a full tmpfs (in a private mount namespace; root only): the
// model's answer is printed, with a warning that it was not saved because
// the disk is full, and the exit code is 1.
func TestOneShotOnAFullDiskStillShowsTheAnswer(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not installed")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Text("the answer you asked for")
	})
	cfg, err := os.ReadFile(scriptedConfig(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(src, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// The home is prepared (a first turn creates its directories), then
	// filled: dd stops at the first failed write. The second message is
	// two pages long: a save that only adds lines appends them to the
	// session file, and a short turn would still fit in its last page.
	script := `set -e
mount -t tmpfs -o size=1m tmpfs "$HOME_DIR"
cp "$SRC" "$HOME_DIR/config.json"
"$BIN" --config "$HOME_DIR/config.json" agent -m "first" >/dev/null
dd if=/dev/zero of="$HOME_DIR/filler" bs=4k 2>/dev/null || true
sync
set +e
"$BIN" --config "$HOME_DIR/config.json" agent -m "second $(printf '%8192s' | tr ' ' .)"
echo "exit=$?"
`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "HOME_DIR="+home, "SRC="+src, "BIN="+bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out, errs := stdout.String(), stderr.String()
	if out != "the answer you asked for\nexit=1\n" || !strings.Contains(errs, "not saved: disk full") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
}
