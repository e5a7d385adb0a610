package runtime

import (
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/footprint"
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
