package term

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// HistoryFile is the name of the prompt history under the joshbot home.
const HistoryFile = "cli_history"

// historyLimit is how many lines the history keeps; older ones fall off
// when it is loaded.
const historyLimit = 1000

// history is the prompt's Up/Down history, kept in a file readable by its
// owner only (0600). Each line of the file is one entry as a JSON string,
// so entries holding newlines (Alt-Enter) survive. A nil *history keeps
// nothing. It is not safe for concurrent use.
type history struct {
	path    string
	entries []string
}

// loadHistory reads the history at path. A missing file is an empty
// history; a malformed line is skipped, since losing one recalled line
// must not stop a conversation.
func loadHistory(path string) (*history, error) {
	h := &history{path: path}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return h, errorf("prompt history %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > historyLimit {
		h.entries = h.entries[len(h.entries)-historyLimit:]
	}
	return h, sc.Err()
}

func (h *history) len() int {
	if h == nil {
		return 0
	}
	return len(h.entries)
}

func (h *history) at(i int) string { return h.entries[i] }

// add records line, skipping blanks and a repeat of the previous entry,
// and appends it to the file. The stored form is redacted: a key pasted
// at the prompt must not sit in a file for good.
func (h *history) add(line string) {
	if h == nil || line == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == line) {
		return
	}
	line = redact.String(line)
	h.entries = append(h.entries, line)
	if h.path == "" {
		return
	}
	if err := h.append(line); err != nil {
		// The conversation goes on; the log says why recall will miss it.
		slog.Warn("prompt history not saved", "path", h.path, "err", err)
	}
}

func (h *history) append(line string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// A file made by an older build or by hand may be wider open.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	b, _ := json.Marshal(line)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
