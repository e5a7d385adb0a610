//go:build !unix

package mcpclient

// lockTrust has no cross-process lock where flock is missing: writers
// in one process are still serialized by the store's mutex.
func lockTrust(string) (func(), error) { return func() {}, nil }
