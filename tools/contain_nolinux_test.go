//go:build !linux

package tools

import "testing"

// setNoOpenat2 does nothing: only Linux has openat2.
func setNoOpenat2(*testing.T, bool) {}

func noOpenat2Bench(bool) bool { return false }
