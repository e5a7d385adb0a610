package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// logFileName is the log kept in the joshbot home beside the config.
const logFileName = "joshbot.log"

// openLogFile opens joshbot.log for appending, readable by its owner only.
// It returns nil when the home directory does not exist yet (a command
// such as `version` must not create it) or the file cannot be opened; the
// reason then goes to stderr once and logging carries on there alone.
func (a *app) openLogFile() *os.File {
	_, home, err := a.paths()
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return nil
	}
	path := filepath.Join(home, logFileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		// A file made before (or by hand) may be open to others.
		err = f.Chmod(0o600)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		fmt.Fprintf(a.stderr, "joshbot: log file %s not written: %v\n", tildePath(path), err)
		return nil
	}
	return f
}

// closeLog closes joshbot.log at the end of a command.
func (a *app) closeLog() {
	if a.logFile != nil {
		a.logFile.Close()
		a.logFile = nil
	}
}

// rawTerminal is set while the line editor holds the terminal in raw
// mode, where a bare newline moves down without returning to the first
// column; a log line written then would otherwise run off in a staircase.
var rawTerminal atomic.Bool

// crlfWriter writes to a terminal's stderr, turning "\n" into "\r\n" while
// the terminal is raw.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if !rawTerminal.Load() {
		return c.w.Write(p)
	}
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
