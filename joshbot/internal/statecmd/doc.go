// Package statecmd holds the commands that inspect and change what
// joshbot keeps on disk: sessions, memory, cron, incidents, skills, mcp
// and tuning. Each is built on a [cmdutil.Factory] the way every command
// is: flags into an Options struct, then a run function, with the
// constructor taking that function as runF so flag parsing is testable
// alone. None of them loads more than it needs: most open only the store
// they report on.
package statecmd
