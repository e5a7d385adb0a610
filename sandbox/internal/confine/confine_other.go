//go:build !linux

package confine

// RunIfRequested returns at once: only Linux re-executes a helper.
func RunIfRequested() {}

// RunIfRequestedAfter returns at once: only Linux re-executes a helper.
func RunIfRequestedAfter(Entry) {}
