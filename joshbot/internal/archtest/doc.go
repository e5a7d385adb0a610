// Package archtest holds the tests that keep the repository's shape true:
// the import direction between modules, the replace rules of every go.mod,
// the workspace listing, the documentation every module and package owes
// its readers, and the rule that a library module's strings never name
// joshbot's config keys. It has no code of its own.
package archtest
