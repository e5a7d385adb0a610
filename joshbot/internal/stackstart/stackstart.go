// Package stackstart gives the main goroutine, before the libraries'
// initialisers run, the stack they grow it to anyway, in one step.
//
// The main goroutine starts with a 2 KiB stack. goldmark's initialisers
// compile regular expressions whose bounded repetitions ({0,61}) recurse
// deeply, and the stack grew 8 → 16 → 32 → 64 → 128 KiB during them. Each
// growth copies the stack and walks every frame on it, reading each
// function's entries in the executable's pclntab and stack maps; those are
// spread over the file, so the walks faulted in about 16 windows of 64 KiB
// of it (the kernel maps file pages around each fault in 64 KiB windows)
// that nothing else at start-up reads: about 1 MiB of peak RSS for
// `joshbot version`, issue 24's ≤ 10 MiB. Grown here, while only
// runtime.main and this package's init are on the stack, the stack is
// copied once with nearly nothing to walk, and no initialiser grows it
// again.
//
// The package must be initialised before any package outside the standard
// library. Go initialises, among the packages whose imports are done, the
// one first by import path; this package imports nothing, and its path
// sorts before those of the libraries that recurse (internal/archtest
// checks the order in the built binary). It is the one joshbot package with
// an init function (see archtest's TestNoJoshbotPackageRunsInitCode).
package stackstart

func init() { grow() }

// frameSize is the stack frame grow asks for. The runtime doubles a stack
// until the frame that overflowed it fits: with about 1 KiB in use, a frame
// over 63 KiB makes the 2 KiB stack 128 KiB in one copy, the size the
// libraries' initialisers reach (more than 64 KiB in use).
const frameSize = 64 << 10

// never is always false; the compiler cannot know that, so grow keeps its
// large frame while never touching it.
var never bool

// grow reserves a frame of frameSize bytes: its prologue finds the stack
// too small and the runtime grows it. The frame's memory is not written
// (the array is only made when never is true), so the new stack's pages
// are faulted in only as they are used.
//
//go:noinline
func grow() {
	if never {
		var frame [frameSize]byte
		use(&frame)
	}
}

//go:noinline
func use(*[frameSize]byte) {}
