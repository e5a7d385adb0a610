package runtime

import (
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/joshbot/joshbot/sandbox"
)

// HelperName is the file name of the dedicated sandbox helper
// (cmd/joshbot-sandbox), looked for beside the joshbot executable.
const HelperName = "joshbot-sandbox"

// HelperBuildIDVar is the linker name of the variable that holds the
// helper's Go build ID: make build, make release, the Dockerfile and the
// bench build the helper first and pass what `go tool buildid` prints for
// it with -ldflags "-X <HelperBuildIDVar>=<id>".
const HelperBuildIDVar = "github.com/joshbot/joshbot/joshbot/internal/runtime.helperBuildID"

// helperBuildID is the Go build ID of the joshbot-sandbox built together
// with this binary, set at link time; empty (go install, a plain go
// build) means joshbot re-runs itself as the helper.
var helperBuildID string

// ProbeCacheName is the file, in the state directory's cache directory,
// where the sandbox keeps what its probe found (sandbox.Options.ProbeCache):
// beside, never inside, the sandbox's own build caches, which confined
// commands may write.
const ProbeCacheName = "sandbox-probe.json"

// sandboxOptions returns the sandbox options for a joshbot whose state
// directory is home, whose executable is exe and whose helper build ID is
// id: the probe's report kept under home/cache, and the dedicated helper
// beside exe when id is known and the file is there, checked against id
// before its first use (a helper of another build is never run: each
// shell command then fails saying so); otherwise joshbot itself is the
// helper.
func sandboxOptions(home, exe, id string) *sandbox.Options {
	o := &sandbox.Options{ProbeCache: filepath.Join(home, "cache", ProbeCacheName)}
	if id == "" || exe == "" || goruntime.GOOS != "linux" {
		return o
	}
	p := filepath.Join(filepath.Dir(exe), HelperName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return o
	}
	o.Helper, o.HelperBuildID = p, id
	return o
}

// executable is os.Executable, or empty when it is unknown.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
