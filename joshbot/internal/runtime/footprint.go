package runtime

import (
	"reflect"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/footprint"
	"github.com/joshbot/joshbot/providers"
)

// Once start-up has settled, and after each spell of turns, a long-running
// command unmaps the executable's pages it no longer touches (see package
// footprint). A second covers start-up; half a minute without a turn ends
// a spell.
const (
	releaseAfterStartup = time.Second
	releaseAfterQuiet   = 30 * time.Second
)

// Idler returns the Idler of a long-running command (gateway, serve).
func (rt *Runtime) Idler() *footprint.Idler {
	return footprint.NewIdler(releaseAfterStartup, releaseAfterQuiet, func() {
		n, err := footprint.ReleaseExecutable()
		if err != nil {
			rt.Logger.Debug("start-up pages kept", "err", err)
			return
		}
		rt.Logger.Debug("released unused executable pages", "mapped_bytes", n)
	})
}

// ReleaseStartupCode unmaps, before a one-shot turn, the machine code
// start-up ran and the turn will not run again, so the turn's peak
// resident set holds the code it runs rather than everything start-up
// touched (command-line parsing, the config, building the runtime, every
// library's initialisation), about 1.5 MiB of a 13 MiB turn at the cost of
// 10 to 20 minor faults (joshbot/CHANGELOG.md).
//
// The linker lays packages out in dependency order. Below package
// providers, the first of joshbot's modules to import net/http, lie the
// runtime and the standard library, which the turn runs again; from it
// up lie joshbot's modules and the libraries only they import: the
// turn's own code, most of it not run yet, and start-up's. So the
// release starts at providers' code; were the layout to change, less or
// more would come back by minor faults, and nothing would run otherwise.
func (rt *Runtime) ReleaseStartupCode() {
	n, err := footprint.ReleaseCode(reflect.ValueOf(providers.NewClient).Pointer())
	if err != nil {
		rt.Logger.Debug("start-up code kept", "err", err)
		return
	}
	rt.Logger.Debug("released start-up code", "mapped_bytes", n)
}
