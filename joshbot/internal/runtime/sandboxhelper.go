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

// HelperSHA256Var is the linker name of the variable that holds the
// helper's SHA-256: make build, make release, the Dockerfile and the
// bench build the helper first and pass its checksum with
// -ldflags "-X <HelperSHA256Var>=<hex>".
const HelperSHA256Var = "github.com/joshbot/joshbot/joshbot/internal/runtime.helperSHA256"

// helperSHA256 is the hex SHA-256 of the joshbot-sandbox built together
// with this binary, set at link time; empty (go install, a plain go
// build) means joshbot re-runs itself as the helper.
var helperSHA256 string

// sandboxOptions returns the sandbox options for a joshbot whose
// executable is exe and whose helper checksum is sum: the dedicated
// helper beside exe when sum is known and the file is there, checked
// against sum before its first use (a helper of another build is never
// run: each shell command then fails saying so); nil, joshbot itself as
// the helper, otherwise.
func sandboxOptions(exe, sum string) *sandbox.Options {
	if sum == "" || exe == "" || goruntime.GOOS != "linux" {
		return nil
	}
	p := filepath.Join(filepath.Dir(exe), HelperName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &sandbox.Options{Helper: p, HelperSHA256: sum}
}

// executable is os.Executable, or empty when it is unknown.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
