package tools

import (
	"context"
	"net/netip"
	"net/url"
	"testing"

	"github.com/joshbot/joshbot/sandbox"
)

// FuzzCheckURL: no URL panics the up-front check, and whatever it admits
// as an IP literal is a public address.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.1/", "http://[::ffff:7f00:1]/", "http://0x7f.1/", "https://93.184.216.34:8443/x", "http://public.test/", "http://[fe80::1%25eth0]/"} {
		f.Add(s)
	}
	g := newSSRFGuard(corpusResolver())
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if g.checkURL(context.Background(), u) != nil {
			return
		}
		if a, ok := parseHostIP(u.Hostname()); ok && !sandbox.PublicAddr(a) {
			t.Fatalf("%q admitted, but %s is not public", raw, a)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && !sandbox.PublicAddr(a) {
			t.Fatalf("%q admitted, but %s is not public", raw, a)
		}
	})
}
