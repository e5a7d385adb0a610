package sandbox_test

import (
	"fmt"
	"net/netip"

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

func ExamplePublicAddr() {
	for _, s := range []string{"1.1.1.1", "169.254.169.254", "::ffff:127.0.0.1", "64:ff9b::a00:1", "64:ff9b::808:808"} {
		a := netip.MustParseAddr(s)
		fmt.Println(s, sandbox.PublicAddr(a), sandbox.DescribeAddr(a))
	}
	// Output:
	// 1.1.1.1 true public
	// 169.254.169.254 false link-local (cloud metadata lives here)
	// ::ffff:127.0.0.1 false loopback
	// 64:ff9b::a00:1 false not a public address
	// 64:ff9b::808:808 true public
}
