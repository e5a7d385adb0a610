package egress_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"

	"github.com/joshbot/joshbot/sandbox/egress"
)

func ExamplePublicAddr() {
	for _, s := range []string{"1.1.1.1", "169.254.169.254", "::ffff:127.0.0.1", "64:ff9b::a00:1", "64:ff9b::808:808"} {
		a := netip.MustParseAddr(s)
		fmt.Println(s, egress.PublicAddr(a), egress.DescribeAddr(a))
	}
	// Output:
	// 1.1.1.1 true public
	// 169.254.169.254 false link-local (cloud metadata lives here)
	// ::ffff:127.0.0.1 false loopback
	// 64:ff9b::a00:1 false not a public address
	// 64:ff9b::808:808 true public
}

func ExampleGuard_CheckURL() {
	var g egress.Guard
	for _, s := range []string{"http://0x7f.1/", "http://metadata.google.internal/", "ftp://93.184.216.34/"} {
		u, _ := url.Parse(s)
		err := g.CheckURL(context.Background(), u)
		fmt.Println(errors.Is(err, egress.ErrNonPublicAddress), err)
	}
	// Output:
	// true address is not public: 0x7f.1 is loopback
	// true address is not public: metadata.google.internal names this machine or an internal service
	// false scheme "ftp" is not allowed; only http and https URLs can be fetched
}

// ExampleGuard_Client builds the client for URLs that arrive from outside.
func ExampleGuard_Client() {
	g := &egress.Guard{MaxRedirects: 3}
	client := g.Client(0)
	_, err := client.Get("http://127.0.0.1:1/")
	fmt.Println(errors.Is(err, egress.ErrNonPublicAddress))
	// Output:
	// true
}
