// Package bench is joshbot's measuring kit, kept out of the product
// modules: fakellm is an instant scripted OpenAI-compatible server,
// proxyfloor the least a program between a client and that server can
// add to the time to first byte, and benchrun builds the release binary, runs it against fakellm many times,
// folds in the go test benchmarks, and writes bench/report.md, a JSON twin
// and an SVG chart of every figure against its target.
//
// Run it with `make bench` from the repository root.
package bench
