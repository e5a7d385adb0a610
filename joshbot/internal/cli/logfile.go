package cli

import (
	"fmt"
	"os"
	"path/filepath"
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
