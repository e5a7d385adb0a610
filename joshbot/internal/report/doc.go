// Package report builds the documents joshbot's read-only commands print
// (status, configure --list, mcp list, sessions export) from what is
// stored and configured, without starting the runtime: a report only
// looks, and creates none of the state it describes.
package report
