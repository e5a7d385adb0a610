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
