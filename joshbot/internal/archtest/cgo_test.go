package archtest

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// cgoPackages are the only packages of the binary with C files: with cgo
// on (a plain `go build` or `go install` where a C compiler exists) they
// make the binary dynamically linked, and `joshbot version` peaks at about
// 16 MiB resident instead of the static build's under 10 MiB. psx (through
// go-landlock) is the one that decides it: the netgo tag drops net's C
// files, not psx's. (os/user left the binary with mvdan.cc/sh's expand.) The README's install section says
// to build with CGO_ENABLED=0; a new package with C files must be weighed
// against that, so it fails here first.
var cgoPackages = []string{
	"kernel.org/pub/linux/libs/security/libcap/psx",
	"net",
	"runtime/cgo",
}

func TestOnlyKnownPackagesNeedCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the binary's dependencies")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", "../../cmd/joshbot")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	if !slices.Equal(got, cgoPackages) {
		t.Fatalf("packages with C files in a cgo build: %v, want %v", got, cgoPackages)
	}
}
