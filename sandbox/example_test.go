package sandbox_test

import (
	"fmt"

	"github.com/joshbot/joshbot/sandbox"
)

func ExampleScreener_Check() {
	scr, _ := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: sandbox.ScreenAllowlist, Workspace: "/ws"})
	fmt.Println(scr.Check("ls -la", "/ws"))
	fmt.Println(scr.Check("ls; rm -rf /", "/ws"))
	// Output:
	// <nil>
	// command refused: ";" can start a second command, which allowlist mode never runs; run one command per call, without ";"
}
