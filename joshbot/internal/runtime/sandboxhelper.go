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

// sandboxOptions returns the sandbox options for a joshbot whose
// executable is exe and whose helper build ID is id: the dedicated
// helper beside exe when id is known and the file is there, checked
// against id before its first use (a helper of another build is never
// run: each shell command then fails saying so); nil, joshbot itself as
// the helper, otherwise.
func sandboxOptions(exe, id string) *sandbox.Options {
	if id == "" || exe == "" || goruntime.GOOS != "linux" {
		return nil
	}
	p := filepath.Join(filepath.Dir(exe), HelperName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &sandbox.Options{Helper: p, HelperBuildID: id}
}

// executable is os.Executable, or empty when it is unknown.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
