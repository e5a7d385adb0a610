// Package onboard makes a first config: it detects a provider from the
// environment (a key in a provider's variable, else a local Ollama), asks
// the person at a terminal when there is one, and chooses the shell
// sandbox from what this system can confine. Its ShellConfinement report
// is also what preflight and status show about the shell.
package onboard
