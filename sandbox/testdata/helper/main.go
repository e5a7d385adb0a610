// Command helper is a dedicated sandbox helper as the tests build one: a
// program whose main does nothing but [sandbox.RunHelperIfRequested].
package main

import (
	"fmt"
	"os"

	"github.com/joshbot/joshbot/sandbox"
)

func main() {
	sandbox.RunHelperIfRequested()
	fmt.Fprintln(os.Stderr, "helper: run only by the sandbox, as its confining helper")
	os.Exit(2)
}
