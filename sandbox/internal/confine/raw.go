package confine

// RawArg, as argv[2], starts a helper whose entry point makes its
// namespaces as for [UnshareArg] and then confines and supervises the
// command itself, the Go runtime never started (sandbox/helper.Entry on
// linux/amd64): it says hello as a helper started with [WarmArg] does,
// reads the same [Request], and builds the same root, confinement and,
// for a policy that allows the network, proxy forwarder. A helper without
// that entry point answers as for UnshareArg.
const RawArg = "--unshare-raw"
