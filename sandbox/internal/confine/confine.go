// Package confine is the sandbox's helper: the code that runs in the
// first process of a confined command's namespaces, builds its private
// root, applies Landlock and the seccomp filter, and starts the command.
// It links none of the parent's machinery (the screener, the network
// proxy, the address guard), so a program whose main runs only this
// starts quickly; package sandbox starts it for every command.
package confine

// Arg is the argv[1] sentinel that marks a process as the confining
// helper.
const Arg = "__sandbox-exec__"

// UnshareArg, as argv[2] after [Arg], starts a helper that makes its own
// namespaces in its entry point (sandbox/helper.Entry) and then, like
// one started with WarmArg, waits for a request, which it confines and
// supervises before the Go runtime ever starts. Its first byte on the
// socket is 'u' once it has unshared (the parent then writes its id maps,
// answers 'm', and reads the pid of the helper proper, 4 bytes), or 'n'
// from a helper linked without that entry point, which then exits.
const UnshareArg = "--unshare-await-request"

// Entry is what a helper's entry point did before the Go runtime started
// (see sandbox/helper.Entry).
type Entry struct {
	// Ran is true when it saw [UnshareArg] and made the namespaces.
	Ran bool
	// Check reports whether the entry point left this process in its
	// namespaces with the ids and groups it must have; it is called when
	// Ran is set.
	Check func() error
}
