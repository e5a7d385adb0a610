package archtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// initSymbol matches the symbols the toolchain emits for a joshbot package
// that runs code at start-up: its init task, its init functions (explicit
// func init, and the one the compiler writes for package variables it
// cannot lay out statically) and the map literals those fill. A closure in
// a package variable's initialiser is named pkg.init.funcN whether or not
// it runs at start-up (sync.Pool{New: func...} is static), so it is not
// matched; its package's init task is when one exists.
var initSymbol = regexp.MustCompile(`^(github\.com/joshbot/joshbot/[^ (]*?)\.(\.inittask|init|init\.\d+|map\.init\.\d+)$`)

// stackstart is the one joshbot package with an init function: it grows
// the main goroutine's stack before the libraries' initialisers do (see
// its doc).
const stackstart = "github.com/joshbot/joshbot/joshbot/internal/stackstart"

// packagesWithInit lists the joshbot packages that `go tool nm` output
// shows running code at start-up.
func packagesWithInit(nm string) []string {
	var pkgs []string
	for line := range strings.Lines(nm) {
		f := strings.Fields(line)
		if len(f) < 3 || (f[len(f)-2] != "T" && f[len(f)-2] != "D" && f[len(f)-2] != "t" && f[len(f)-2] != "d") {
			continue
		}
		if m := initSymbol.FindStringSubmatch(f[len(f)-1]); m != nil && !slices.Contains(pkgs, m[1]) {
			pkgs = append(pkgs, m[1])
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

func TestPackagesWithInitCatchesInitCode(t *testing.T) {
	nm := `  8023a0 T github.com/joshbot/joshbot/agent.(*extension).init
  80a480 T github.com/joshbot/joshbot/agent.(*learnQueue).init
  7f4cc0 T github.com/joshbot/joshbot/agent.map.init.0
  734340 T github.com/joshbot/joshbot/providers.init
 11947f0 D github.com/joshbot/joshbot/sandbox/egress..inittask
  74efc0 T github.com/joshbot/joshbot/sandbox/egress.init.OnceValue[go.shape.int].func2.1
  738ba0 t github.com/joshbot/joshbot/memory.init.func1
  8d76a0 T github.com/joshbot/joshbot/joshbot/internal/cli.init.0
  9bcb20 T github.com/joshbot/joshbot/tools.initTools
  9bcb20 T github.com/joshbot/joshbot/tools.(*x).init.func1
  982ca0 T gopkg.in/telebot%2ev3.init
 1194750 D net/http..inittask
  416300 U github.com/joshbot/joshbot/memory.init
`
	got := packagesWithInit(nm)
	want := []string{
		"github.com/joshbot/joshbot/agent",
		"github.com/joshbot/joshbot/joshbot/internal/cli",
		"github.com/joshbot/joshbot/providers",
		"github.com/joshbot/joshbot/sandbox/egress",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packagesWithInit = %v, want %v", got, want)
	}
}

// TestNoJoshbotPackageRunsInitCode builds the release binaries as the
// bench and make build do (static, trimmed, but keeping the symbol table
// that -s -w strips; the code and its layout are the same) and fails if
// any joshbot package runs code before main. Every start-up, `joshbot
// version` included, faults in the executable's pages by 64 KiB
// fault-around windows, and each package's init function sits in a window
// of its own: about 64 KiB of peak RSS per package (issue 24's ≤ 10 MiB
// for version). Package state must be laid out statically by the compiler
// (literals of slices, structs, strings, func values without captures,
// errors.New, a sentinel type's zero value) or built on first use behind a
// sync.Once in a function; a map literal, sync.OnceValue(...), a copy of
// another package's variable, strings.NewReplacer or regexp.MustCompile at
// package level is init code. The exception is internal/stackstart, whose
// init must run first of all but the standard library's, which the test
// checks in the binary's GODEBUG=inittrace=1 output.
func TestNoJoshbotPackageRunsInitCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries; skipped in -short mode")
	}
	dir := t.TempDir()
	for _, cmd := range []string{"joshbot", "joshbot-sandbox"} {
		bin := filepath.Join(dir, cmd)
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "../../cmd/"+cmd)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
		// By address: packagesWithInit does not mind the order, and the
		// layout check needs it.
		nm, err := exec.Command("go", "tool", "nm", "-n", bin).Output()
		if err != nil {
			t.Fatalf("go tool nm -n %s: %v", cmd, err)
		}
		if !strings.Contains(string(nm), "github.com/joshbot/joshbot/") {
			t.Fatalf("go tool nm %s lists no joshbot symbol: the check would prove nothing", cmd)
		}
		pkgs := slices.DeleteFunc(packagesWithInit(string(nm)), func(p string) bool { return cmd == "joshbot" && p == stackstart })
		if len(pkgs) > 0 {
			t.Errorf("%s: these joshbot packages run init code at start-up (see go tool nm -size | grep init): %s",
				cmd, strings.Join(pkgs, ", "))
		}
		if cmd == "joshbot" {
			run := exec.Command(bin, "version")
			run.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+t.TempDir())
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("GODEBUG=inittrace=1 joshbot version: %v\n%s", err, out)
			}
			if err := checkStackstartFirst(string(out)); err != nil {
				t.Error(err)
			}
			if err := checkStackstartLaidOutFirst(string(nm)); err != nil {
				t.Error(err)
			}
		}
	}
}

// checkStackstartFirst reads GODEBUG=inittrace=1 output and returns an
// error unless stackstart is initialised, and before every package outside
// the standard library (a path whose first element has a dot).
func checkStackstartFirst(trace string) error {
	seen := false
	for line := range strings.Lines(trace) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		switch pkg := f[1]; {
		case pkg == stackstart:
			seen = true
		case !seen && strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
			return fmt.Errorf("%s is initialised before %s, so its initialiser may grow the main goroutine's stack step by step (a path sorting before stackstart's, or stackstart importing a package?)", pkg, stackstart)
		}
	}
	if !seen {
		return fmt.Errorf("GODEBUG=inittrace=1 output names no %s: it is not linked, or has no init", stackstart)
	}
	return nil
}

func TestCheckStackstartFirst(t *testing.T) {
	good := "init internal/bytealg @0.004 ms, 0 ms clock, 0 bytes, 0 allocs\n" +
		"init " + stackstart + " @0.3 ms, 0.03 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/yuin/goldmark/util @2.4 ms, 0.21 ms clock, 139464 bytes, 437 allocs\n" +
		"joshbot dev\n"
	if err := checkStackstartFirst(good); err != nil {
		t.Errorf("stackstart first: %v", err)
	}
	late := "init github.com/yuin/goldmark/util @2.4 ms, 0.21 ms clock, 139464 bytes, 437 allocs\n" +
		"init " + stackstart + " @2.6 ms, 0.03 ms clock, 0 bytes, 0 allocs\n"
	if checkStackstartFirst(late) == nil {
		t.Error("stackstart after goldmark was accepted")
	}
	if checkStackstartFirst("init errors @0.4 ms, 0 ms clock, 0 bytes, 0 allocs\n") == nil {
		t.Error("a trace without stackstart was accepted")
	}
}

// checkStackstartLaidOutFirst reads `go tool nm -n` output (by address)
// and returns an error unless stackstart's code comes before the code of
// every package outside the standard library. Its growth of the stack
// walks its own frames' tables, and laid out beside the runtime's they
// are in pages start-up reads anyway; the linker orders packages as
// package main's files import them, so cmd/joshbot's early_stack.go
// must keep its name sorting before main.go.
// modulePath matches a symbol of a package outside the standard library:
// its path starts with a domain (github.com/, gopkg.in/). The toolchain's
// own symbols (runtime.text, type:.eq.internal/abi.X) do not.
var modulePath = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/`)

func checkStackstartLaidOutFirst(nm string) error {
	for line := range strings.Lines(nm) {
		f := strings.Fields(line)
		if len(f) < 3 || (f[len(f)-2] != "T" && f[len(f)-2] != "t") {
			continue
		}
		sym := f[len(f)-1]
		switch {
		case strings.HasPrefix(sym, stackstart+"."):
			return nil
		case modulePath.MatchString(sym):
			return fmt.Errorf("the code of %s is laid out before %s's: package main's file importing stackstart (early_stack.go) must sort before its other files", sym, stackstart)
		}
	}
	return fmt.Errorf("go tool nm -n lists no code of %s", stackstart)
}

func TestCheckStackstartLaidOutFirst(t *testing.T) {
	good := "  401000 T internal/abi.Kind.String\n" +
		"  401100 T runtime.text\n" +
		"  401200 T type:.eq.internal/abi.UncommonType\n" +
		"  48f060 T " + stackstart + ".init.0\n" +
		"  4a0000 T github.com/yuin/goldmark/util.init\n"
	if err := checkStackstartLaidOutFirst(good); err != nil {
		t.Errorf("stackstart first: %v", err)
	}
	late := "  401000 T internal/abi.Kind.String\n" +
		"  48f060 T github.com/joshbot/joshbot/joshbot/internal/cli.Main\n" +
		"  a0e880 T " + stackstart + ".init.0\n"
	if checkStackstartLaidOutFirst(late) == nil {
		t.Error("stackstart laid out after a joshbot package was accepted")
	}
	if checkStackstartLaidOutFirst("  401000 T internal/abi.Kind.String\n") == nil {
		t.Error("a listing without stackstart was accepted")
	}
}
