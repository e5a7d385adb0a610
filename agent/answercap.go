package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/joshbot/joshbot/providers"
)

// DefaultMaxAnswerBytes is the largest answer kept in a session when
// LimitOptions.MaxAnswerBytes is zero: 1 MiB of text, far more than anyone reads
// in a chat, far less than a session line may hold.
const DefaultMaxAnswerBytes = 1 << 20

// MaxAnswerBytesLimit is the largest LimitOptions.MaxAnswerBytes accepted: half
// of what one stored session line may hold, leaving room for the note and
// the JSON escaping.
const MaxAnswerBytesLimit = 8 << 20

// AnswersDir is the workspace directory that receives answers longer than
// LimitOptions.MaxAnswerBytes, whole, as Markdown files.
const AnswersDir = "answers"

// answerCap cuts text to at most n bytes on a rune boundary.
func answerCap(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// capStream passes the part of s that keeps the answer shown so far
// (*shown bytes) within the cap, so a streamed answer never shows more than
// the session will keep.
func (t *turn) capStream(s string, shown *int) string {
	limit := t.a.maxAnswerBytes
	if *shown >= limit {
		*shown += len(s)
		return ""
	}
	if *shown+len(s) <= limit {
		*shown += len(s)
		return s
	}
	cut := answerCap(s, limit-*shown)
	*shown += len(s)
	return cut
}

// keepAnswer caps a final answer over the limit: the whole answer goes to
// a file under the workspace's AnswersDir, and msg keeps the capped text
// with a note naming the file (or saying why there is none). It returns the
// note, which the caller shows after the capped text it streamed; "" when
// the answer fits.
func (t *turn) keepAnswer(msg *providers.Message) string {
	limit := t.a.maxAnswerBytes
	full := msg.Content
	if len(full) <= limit {
		return ""
	}
	rel, err := t.a.saveAnswer(t.sess.Key, full)
	var note string
	if err == nil {
		note = fmt.Sprintf("[This answer is %d bytes, more than the %d kept in the conversation (%s); it was cut here. The whole answer is in the workspace file %s.]",
			len(full), limit, t.a.names.MaxAnswerBytes, rel)
	} else {
		t.a.log.Warn("long answer not saved to the workspace; only its start is kept", "session", t.sess.Key, "bytes", len(full), "err", err)
		note = fmt.Sprintf("[This answer is %d bytes, more than the %d kept in the conversation (%s); it was cut here, and the rest could not be saved: %s]",
			len(full), limit, t.a.names.MaxAnswerBytes, oneLine(err.Error()))
	}
	msg.Content = answerCap(full, limit) + "\n\n" + note
	return note
}

// saveAnswer writes an answer whole to a new file under the workspace's
// AnswersDir and returns its path relative to the workspace.
func (a *Agent) saveAnswer(key, text string) (string, error) {
	if a.workspace == "" {
		return "", errorf("no workspace is configured to hold it")
	}
	dir := filepath.Join(a.workspace, AnswersDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	stem := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, key)
	name := stem + "-" + a.now().UTC().Format("20060102T150405.000000000Z") + ".md"
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return filepath.ToSlash(filepath.Join(AnswersDir, name)), nil
}
