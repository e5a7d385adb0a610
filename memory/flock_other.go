//go:build !unix

package memory

import "context"

// lockFile is a no-op where advisory file locks are not available through
// the standard library; the atomic rename still keeps files whole, but two
// processes appending at once may lose one another's message.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }

// lockFileCtx is lockFile; there is nothing to wait for.
func lockFileCtx(context.Context, string) (unlock func(), err error) { return func() {}, nil }
