package sandbox_test

import (
	"fmt"

	"github.com/joshbot/joshbot/sandbox"
)

func ExampleScreener_Check() {
	scr, _ := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: sandbox.ScreenAllowlist, Workspace: "/ws"})
	fmt.Println(scr.Check("ls -la", "/ws"))
	fmt.Println(scr.Check("ls; rm -rf /", "/ws"))
	fmt.Println(scr.Check("sort -S 1 --compress-prog=sh data.txt", "/ws"))
	// Output:
	// <nil>
	// command refused: "rm" is not on the allowlist (ScreenOptions.Allow)
	// command refused: sort --compress-prog (--compress-program) runs another program; the screen never allows that
}
