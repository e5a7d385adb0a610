package helper

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
	"golang.org/x/sys/unix"
)

// Entry is the entry point to link a dedicated helper with on linux/amd64:
//
//	go build -ldflags "-E github.com/joshbot/joshbot/sandbox/helper.Entry" ./cmd/myhelper
//
// It is never called from Go. Before the Go runtime starts (while the
// process still has one thread, which unshare(2) of a user namespace
// requires) it makes the helper's own fresh namespaces, when the sandbox
// asked for that in the helper's arguments. The sandbox can then start
// the helper without namespaces, by vfork, so it neither copies its own
// page tables into the child nor pays afterwards, on every page it
// writes, for the copy-on-write protection a fork leaves behind. The
// helper then confines, runs and supervises the command itself with the
// Go runtime never started (see rawMain), which halves a command's cost.
// Without the marker the Go program starts as the usual entry point
// would start it, and when a step fails it starts to report the failure.
// A helper linked without Entry still works: it tells the sandbox so,
// and is started the old way.
//
// With the marker as argv[2] it unshares the namespaces, asks its parent
// on descriptor 4 to write its id maps and waits for them, then forks:
// the child, the first process of the new PID namespace, takes uid and
// gid 0 and no supplementary groups where it may, dies with its parent
// from then on, and runs rawMain; the parent sends the child's pid on
// descriptor 4, closes its descriptors 0 to 4, and exits with the child's
// status, or 128 and its signal. A failure is recorded in entryWords for
// the Go program to report.
func Entry()

// entryMarker is [confine.UnshareArg], NUL-terminated, as Entry compares
// it with argv[2] (TestEntryReadsWhatTheSandboxSends).
//
//lint:ignore U1000 read by Entry, in assembly
var entryMarker = [...]byte{'-', '-', 'u', 'n', 's', 'h', 'a', 'r', 'e', '-', 'a', 'w', 'a', 'i', 't', '-', 'r', 'e', 'q', 'u', 'e', 's', 't', 0}

// entryFlags are the namespaces Entry unshares.
//
//lint:ignore U1000 read by Entry, in assembly
var entryFlags uint64 = confine.CloneFlags

// entryWords is what Entry leaves: [0] 1 when it saw the marker, [1] the
// step that failed (0: none), [2] its errno; the rest is its scratch space.
var entryWords [7]uint64

// entry reports what Entry did.
func entry() confine.Entry {
	return confine.Entry{Ran: entryWords[0] == 1, Check: entered}
}

// entryStages name Entry's steps, for its errors.
var entryStages = [...]string{1: "unshare", 2: "asking its parent for its id maps", 3: "waiting for its id maps", 4: "pipe2", 5: "fork", 6: "waiting for its pid to be sent", 7: "prctl(PR_SET_PDEATHSIG)", 8: "setresgid", 9: "setresuid", 10: "arch_prctl(ARCH_SET_FS)"}

// entered checks what Entry did: it made the namespaces, and this process
// is uid and gid 0 in them, with no supplementary group left where the
// parent allowed setgroups (it is root). Anything else fails the helper,
// so no command runs with less confinement than asked.
func entered() error {
	if stage := entryWords[1]; stage != 0 {
		what := fmt.Sprint("step ", stage)
		if stage < uint64(len(entryStages)) {
			what = entryStages[stage]
		}
		if entryWords[2] == 0 {
			return fmt.Errorf("making its namespaces: %s: the parent closed the socket or answered wrongly", what)
		}
		return fmt.Errorf("making its namespaces: %s: %w", what, syscall.Errno(entryWords[2]))
	}
	if uid, gid := unix.Getuid(), unix.Getgid(); uid != 0 || gid != 0 {
		return fmt.Errorf("making its namespaces: uid %d and gid %d, not 0", uid, gid)
	}
	b, err := os.ReadFile("/proc/self/setgroups")
	if err != nil {
		return fmt.Errorf("making its namespaces: %w", err)
	}
	if strings.TrimSpace(string(b)) == "allow" {
		groups, err := unix.Getgroups()
		if err != nil {
			return fmt.Errorf("making its namespaces: %w", err)
		}
		if len(groups) > 0 {
			return errors.New("making its namespaces: supplementary groups left: " + fmt.Sprint(groups))
		}
	}
	return nil
}
