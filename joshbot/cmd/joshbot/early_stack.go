//go:build !nostackstart

package main

// Grows the main goroutine's stack before the libraries' initialisers
// would, in one step (see the package).
//
// The import has a file of its own so that the bench suite can build the
// binary without it (-tags nostackstart) and show, in the same rounds,
// what it saves. The file's name sorts before main.go: the linker lays
// packages out in the order the files import them, and imported first,
// stackstart's code and tables sit beside the runtime's, which start-up
// reads anyway; imported after main.go's imports, they land among the
// joshbot packages (archtest's TestNoJoshbotPackageRunsInitCode checks
// the layout).
import _ "github.com/joshbot/joshbot/joshbot/internal/stackstart"
