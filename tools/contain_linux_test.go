//go:build linux

package tools

import "testing"

func setNoOpenat2(t *testing.T, v bool) {
	old := noOpenat2
	noOpenat2 = v
	t.Cleanup(func() { noOpenat2 = old })
}

func noOpenat2Bench(v bool) bool {
	old := noOpenat2
	noOpenat2 = v
	return old
}
