//go:build !linux || !amd64

package helper

import "github.com/joshbot/joshbot/sandbox/internal/confine"

// entry reports that no entry point ran: there is none here.
func entry() confine.Entry { return confine.Entry{} }
