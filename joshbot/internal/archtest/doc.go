// Package archtest holds the tests that keep the repository's shape true:
// the import direction between modules, the replace rules of every go.mod,
// the workspace listing, and the documentation every module and package
// owes its readers. It has no code of its own.
package archtest
