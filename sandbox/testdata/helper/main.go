// Command helper is a dedicated sandbox helper as the tests build one: a
// program whose main does nothing but [helper.RunIfRequested].
package main

import (
	"fmt"
	"os"

	"github.com/joshbot/joshbot/sandbox/helper"
)

func main() {
	helper.RunIfRequested()
	fmt.Fprintln(os.Stderr, "helper: run only by the sandbox, as its confining helper")
	os.Exit(2)
}
