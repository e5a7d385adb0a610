package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// File names of long-term memory inside a workspace.
const (
	// MemoryFileName is the shared fact file, always in every prompt.
	MemoryFileName = "MEMORY.md"
	// HistoryFileName is the append-only event log.
	HistoryFileName = "HISTORY.md"
	// SessionMemoryDir is the default directory, inside the workspace, of
	// the per-session fact files; see LongTermOptions.SessionDir.
	SessionMemoryDir = "memory"
)

// SharedScope is the scope of MEMORY.md, the memory every session shares.
// Any other scope is a session key, whose facts only that session sees.
const SharedScope = ""

// DefaultMaxMemoryBytes is the size a fact file is kept under when
// LongTermOptions.MaxBytes is zero.
const DefaultMaxMemoryBytes = 12 << 10

// maxFactBytes bounds one fact; a longer one is shortened on a rune boundary.
const maxFactBytes = 500

// Dream modes, as set by agents.defaults.dream_mode.
const (
	DreamOff    = "off"
	DreamRecord = "record"
	DreamFull   = "full"
)

// LongTerm is the long-term memory of one workspace: fact files that go into
// the prompt (MEMORY.md for everyone, one file per session key for facts
// learned in that conversation), the append-only HISTORY.md, and the dream
// files.
//
// Facts learned from one conversation are stored in that session's scope
// ([LongTerm.ScopeOf]): by default the session itself, so they reach no
// other session's prompt; with LongTermOptions.Scope, the person the
// session belongs to, so every conversation with that person shares them.
//
// A LongTerm is safe for concurrent use, and writes are coordinated with
// other processes through an advisory lock (on Unix). Fact files are replaced
// atomically; HISTORY.md is only ever appended to.
type LongTerm struct {
	dir      string
	sessDir  string
	lockDir  string
	maxBytes int
	dream    string
	now      func() time.Time
	scope    func(key string) string
	mu       sync.Mutex

	// histMu guards histPending, the AppendHistory entries waiting for
	// the lock; histBatches counts the appends that wrote them.
	histMu      sync.Mutex
	histPending []*historyEntry
	histBatches int
}

// LongTermOptions configures [OpenLongTerm]. A nil *LongTermOptions means
// the defaults of every field.
type LongTermOptions struct {
	// MaxBytes is the size each fact file is kept under; zero means
	// DefaultMaxMemoryBytes. Facts beyond it are moved to HISTORY.md, never
	// dropped.
	MaxBytes int
	// DreamMode is DreamOff, DreamRecord or DreamFull; empty means
	// DreamOff.
	DreamMode string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SessionDir holds the per-session fact files; empty means
	// SessionMemoryDir inside the workspace. Keeping it outside the
	// workspace keeps one conversation's facts out of reach of the
	// filesystem tools in another.
	SessionDir string
	// LockDir holds the lock file (.memory.lock) that serializes writers
	// of this memory across processes; empty means the workspace dir
	// itself. Anything that can write the workspace (the shell tool, say)
	// can hold a lock there forever and stall every later turn, so a
	// program should put it in its own state directory.
	LockDir string
	// Scope maps a session key to the scope its learned facts belong to
	// (see [LongTerm.ScopeOf]): SharedScope for MEMORY.md, or another
	// valid session key naming a fact file, such as "telegram:12345" for
	// one person on every chat with them. Nil means each session is its
	// own scope. A program that knows who is who (its operator on every
	// channel, say) passes a resolver here so that what one person said
	// on one channel is known on the others.
	Scope func(key string) string
}

// LockFileName is the name of the lock file in LongTermOptions.LockDir.
const LockFileName = ".memory.lock"

// OpenLongTerm returns the long-term memory kept in the workspace dir,
// creating dir if needed. Temporary files that an interrupted write left in
// dir or the session memory directory more than a minute ago are removed.
func OpenLongTerm(dir string, opts *LongTermOptions) (*LongTerm, error) {
	if dir == "" {
		return nil, errors.New("memory: open long-term memory: the workspace directory is empty")
	}
	if opts == nil {
		opts = &LongTermOptions{}
	}
	l := &LongTerm{dir: dir, sessDir: opts.SessionDir, lockDir: opts.LockDir, maxBytes: opts.MaxBytes, dream: opts.DreamMode, now: opts.Now, scope: opts.Scope}
	if l.sessDir == "" {
		l.sessDir = filepath.Join(dir, SessionMemoryDir)
	}
	if l.lockDir == "" {
		l.lockDir = dir
	} else if err := os.MkdirAll(l.lockDir, 0o700); err != nil {
		return nil, errorf("memory: open long-term memory: lock directory: %w", err)
	}
	if l.maxBytes == 0 {
		l.maxBytes = DefaultMaxMemoryBytes
	}
	if l.maxBytes < 512 {
		return nil, errorf("memory: LongTermOptions.MaxBytes is %d: use at least 512, or 0 for DefaultMaxMemoryBytes", l.maxBytes)
	}
	switch l.dream {
	case "":
		l.dream = DreamOff
	case DreamOff, DreamRecord, DreamFull:
	default:
		return nil, errorf("memory: LongTermOptions.DreamMode %q is not one of DreamOff, DreamRecord, DreamFull (off, record, full)", l.dream)
	}
	if l.now == nil {
		l.now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errorf("memory: open long-term memory: %w", err)
	}
	// Leftovers of writes a killed process never renamed into place.
	// The markers live in the session memory directory, which this
	// package owns, when it exists: never in the user's workspace.
	var wsMarker, sessMarker string
	if err := os.MkdirAll(l.sessDir, 0o700); err == nil {
		wsMarker, sessMarker = filepath.Join(l.sessDir, sweepMarker+"-workspace"), filepath.Join(l.sessDir, sweepMarker)
	}
	sweepTemp(l.dir, wsMarker)
	sweepTemp(l.sessDir, sessMarker)
	return l, nil
}

// ScopeOf returns the scope of session key: where facts learned in that
// session are kept and which fact file its prompt shows, as
// LongTermOptions.Scope resolves it. Without a resolver, and for a key the
// resolver maps to something that is neither SharedScope nor a valid
// session key, it is key itself, so a faulty resolver never merges
// someone into another person's memory.
func (l *LongTerm) ScopeOf(key string) string {
	if l.scope == nil {
		return key
	}
	sc := l.scope(key)
	if sc != SharedScope && ValidateKey(sc) != nil {
		return key
	}
	return sc
}

// Dir returns the workspace directory.
func (l *LongTerm) Dir() string { return l.dir }

// DreamMode returns the configured dream mode.
func (l *LongTerm) DreamMode() string { return l.dream }

// MaxBytes returns the size fact files are kept under.
func (l *LongTerm) MaxBytes() int { return l.maxBytes }

// lock serializes writers of this workspace's memory, in and across
// processes.
func (l *LongTerm) lock() (func(), error) {
	l.mu.Lock()
	release, err := lockFile(filepath.Join(l.lockDir, LockFileName))
	if err != nil {
		l.mu.Unlock()
		return nil, err
	}
	return func() { release(); l.mu.Unlock() }, nil
}

// FactsPath returns the fact file of scope: MEMORY.md for SharedScope,
// otherwise a file in the session memory directory (see SessionDir) named
// after the session key.
func (l *LongTerm) FactsPath(scope string) (string, error) {
	if scope == SharedScope {
		return filepath.Join(l.dir, MemoryFileName), nil
	}
	if err := ValidateKey(scope); err != nil {
		return "", err
	}
	return filepath.Join(l.sessDir, keyStem(scope)+".md"), nil
}

// SessionDir returns the directory of the per-session fact files.
func (l *LongTerm) SessionDir() string { return l.sessDir }

// HistoryPath returns the path of HISTORY.md.
func (l *LongTerm) HistoryPath() string { return filepath.Join(l.dir, HistoryFileName) }

// ReadFacts returns the text of scope's fact file, or "" when it does not
// exist. Damage (NUL bytes, control characters, invalid UTF-8) is cleaned
// out of the text as [CleanText] does, with a warning logged through
// log/slog.
func (l *LongTerm) ReadFacts(scope string) (string, error) {
	p, err := l.FactsPath(scope)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", errorf("memory: read facts: %w", err)
	}
	text, changed := CleanText(b)
	if changed {
		slog.Warn("memory: fact file holds NUL bytes, control characters or invalid UTF-8; using a cleaned copy (the file is unchanged)", "file", p)
	}
	return text, nil
}

// Facts returns the facts (the "- " bullet lines) of scope's fact file.
func (l *LongTerm) Facts(scope string) ([]string, error) {
	text, err := l.ReadFacts(scope)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if f, ok := bullet(line); ok {
			out = append(out, f)
		}
	}
	return out, nil
}

func bullet(line string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, p := range []string{"- ", "* "} {
		if f, ok := strings.CutPrefix(t, p); ok && strings.TrimSpace(f) != "" {
			return strings.TrimSpace(f), true
		}
	}
	return "", false
}

// normFact is the form two facts are compared in: lowercase, single spaces,
// no trailing punctuation.
func normFact(f string) string {
	f = strings.ToLower(strings.Join(strings.Fields(f), " "))
	return strings.TrimRightFunc(f, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// cleanFact makes a model-supplied fact fit for one bullet line.
func cleanFact(f string) string {
	f = strings.ToValidUTF8(f, "")
	f = strings.Join(strings.Fields(f), " ")
	f = strings.TrimLeft(f, "-* ")
	if len(f) > maxFactBytes {
		n := maxFactBytes
		for n > 0 && !utf8.RuneStart(f[n]) {
			n--
		}
		f = f[:n] + "…"
	}
	return f
}

// AddFacts merges facts into scope's fact file: each becomes a "- " line
// unless an equal fact (ignoring case, spacing and trailing punctuation) is
// already there or earlier in facts. It returns the facts it added and
// whether the file is now over MaxBytes; see [LongTerm.Consolidate] and
// [LongTerm.SpillOverflow] for bringing it back under.
func (l *LongTerm) AddFacts(scope string, facts []string) (added []string, over bool, err error) {
	if _, err := l.FactsPath(scope); err != nil {
		return nil, false, err
	}
	unlock, err := l.lock()
	if err != nil {
		return nil, false, errorf("memory: add facts: %w", err)
	}
	defer unlock()
	added, err = l.addFactsLocked(scope, facts)
	if err != nil {
		return nil, false, err
	}
	text, err := l.ReadFacts(scope)
	return added, len(text) > l.maxBytes, err
}

// addFactsLocked is AddFacts for a caller holding the lock.
func (l *LongTerm) addFactsLocked(scope string, facts []string) (added []string, err error) {
	p, err := l.FactsPath(scope)
	if err != nil {
		return nil, err
	}
	text, err := l.ReadFacts(scope)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool)
	for _, line := range strings.Split(text, "\n") {
		if f, ok := bullet(line); ok {
			seen[normFact(f)] = true
		}
	}
	var b strings.Builder
	b.WriteString(text)
	if text == "" && scope != SharedScope {
		b.WriteString("# Learned in this conversation\n\n")
	}
	for _, f := range facts {
		f = cleanFact(f)
		n := normFact(f)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("- " + f + "\n")
		added = append(added, f)
	}
	if len(added) == 0 {
		return nil, nil
	}
	if err := writeFileAtomic(p, []byte(b.String())); err != nil {
		return nil, errorf("memory: add facts: %w", err)
	}
	return added, nil
}

// Consolidate replaces the facts of scope's fact file with facts, a
// shorter restatement of them (typically written by the model), keeping
// every line of the file that is not a fact. The previous text is appended
// to HISTORY.md first, so the old wording stays searchable; if that append
// fails nothing changes. It returns an error, and changes nothing, when the
// result would still be over MaxBytes.
func (l *LongTerm) Consolidate(scope string, facts []string) error {
	p, err := l.FactsPath(scope)
	if err != nil {
		return err
	}
	unlock, err := l.lock()
	if err != nil {
		return errorf("memory: consolidate: %w", err)
	}
	defer unlock()
	text, err := l.ReadFacts(scope)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if _, ok := bullet(line); !ok {
			b.WriteString(line + "\n")
		}
	}
	seen := make(map[string]bool)
	for _, f := range facts {
		f = cleanFact(f)
		if n := normFact(f); n != "" && !seen[n] {
			seen[n] = true
			b.WriteString("- " + f + "\n")
		}
	}
	if b.Len() > l.maxBytes {
		return errorf("memory: consolidated facts are %d bytes, still over the limit of %d", b.Len(), l.maxBytes)
	}
	entry := fmt.Sprintf("%s was consolidated; its previous text was:\n%s", factsName(scope), text)
	if err := l.appendHistory(historyTag(scope), entry, false); err != nil {
		return errorf("memory: consolidate abandoned: %w", err)
	}
	if err := writeFileAtomic(p, []byte(b.String())); err != nil {
		return errorf("memory: consolidate: %w", err)
	}
	return nil
}

// SpillOverflow brings scope's fact file under MaxBytes by moving its
// oldest facts, in order, into one HISTORY.md entry (written first), where
// memory_search still finds them. It is the fallback when the model cannot
// consolidate. It returns how many facts moved.
func (l *LongTerm) SpillOverflow(scope string) (int, error) {
	p, err := l.FactsPath(scope)
	if err != nil {
		return 0, err
	}
	unlock, err := l.lock()
	if err != nil {
		return 0, errorf("memory: spill overflow: %w", err)
	}
	defer unlock()
	text, err := l.ReadFacts(scope)
	if err != nil || len(text) <= l.maxBytes {
		return 0, err
	}
	lines := strings.Split(text, "\n")
	size := len(text)
	var moved []string
	for i, line := range lines {
		if size <= l.maxBytes {
			break
		}
		if f, ok := bullet(line); ok {
			moved = append(moved, "- "+f)
			size -= len(line) + 1
			lines[i] = "\x00"
		}
	}
	if len(moved) == 0 {
		return 0, nil
	}
	var kept []string
	for _, line := range lines {
		if line != "\x00" {
			kept = append(kept, line)
		}
	}
	entry := fmt.Sprintf("Moved from %s to keep it under %d bytes:\n%s", factsName(scope), l.maxBytes, strings.Join(moved, "\n"))
	if err := l.appendHistory(historyTag(scope), entry, false); err != nil {
		return 0, errorf("memory: spill overflow abandoned: %w", err)
	}
	if err := writeFileAtomic(p, []byte(strings.Join(kept, "\n"))); err != nil {
		return 0, errorf("memory: spill overflow: %w", err)
	}
	return len(moved), nil
}

func factsName(scope string) string {
	if scope == SharedScope {
		return MemoryFileName
	}
	return "the memory of session " + scope
}

// historyTag is the owner written into a HISTORY.md entry header.
func historyTag(scope string) string {
	if scope == SharedScope {
		return sharedTag
	}
	return scope
}

// sharedTag marks HISTORY.md entries every session may find.
const sharedTag = "shared"

// AppendHistory appends an entry about session key to HISTORY.md and, when
// dream mode is not off, a raw record of it to the dream log. key must be a
// valid session key; only that session's searches find the entry.
//
// The entry is synced to disk before AppendHistory returns. Entries that
// callers add while another append holds the memory lock are written
// together, with one write and one sync, by the first of them to get the
// lock: concurrent turns share a sync rather than queue for one each.
func (l *LongTerm) AppendHistory(key, text string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	e := &historyEntry{tag: key, text: text}
	l.histMu.Lock()
	l.histPending = append(l.histPending, e)
	l.histMu.Unlock()
	unlock, err := l.lock()
	if err != nil {
		if l.unqueue(e) {
			return errorf("memory: append history: %w", err)
		}
		// An append holding the lock took the entry into its batch:
		// its result is this call's, known once that append is done.
		l.mu.Lock()
		defer l.mu.Unlock()
		return e.err
	}
	defer unlock()
	if e.written {
		return e.err
	}
	l.histMu.Lock()
	batch := l.histPending
	l.histPending = nil
	l.histMu.Unlock()
	l.appendHistoryBatch(batch, l.dream != DreamOff)
	return e.err
}

// unqueue takes e out of the entries waiting to be written and reports
// whether it was still there.
func (l *LongTerm) unqueue(e *historyEntry) bool {
	l.histMu.Lock()
	defer l.histMu.Unlock()
	for i, p := range l.histPending {
		if p == e {
			l.histPending = append(l.histPending[:i], l.histPending[i+1:]...)
			return true
		}
	}
	return false
}

// historyEntry is one AppendHistory call's entry, queued until some call
// holding the lock writes it; written and err are set under the lock.
type historyEntry struct {
	tag, text string
	written   bool
	err       error
}

// appendHistoryBatch writes entries with one append and sets each one's
// result; the caller holds the lock.
func (l *LongTerm) appendHistoryBatch(entries []*historyEntry, dream bool) {
	l.histBatches++
	now := l.now().UTC()
	var b bytes.Buffer
	for _, e := range entries {
		formatHistory(&b, e.tag, e.text, now)
	}
	err := appendSync(l.HistoryPath(), b.Bytes())
	if err != nil {
		err = errorf("append %s: %w", HistoryFileName, err)
	}
	for _, e := range entries {
		e.written, e.err = true, err
		if err == nil && dream {
			e.err = l.recordDream(e.tag, e.text, now)
		}
	}
}

// appendHistory writes one entry; the caller holds the lock.
func (l *LongTerm) appendHistory(tag, text string, dream bool) error {
	now := l.now().UTC()
	var b bytes.Buffer
	formatHistory(&b, tag, text, now)
	if err := appendSync(l.HistoryPath(), b.Bytes()); err != nil {
		return errorf("append %s: %w", HistoryFileName, err)
	}
	if dream {
		if err := l.recordDream(tag, text, now); err != nil {
			return err
		}
	}
	return nil
}

// formatHistory writes one HISTORY.md entry to b.
func formatHistory(b *bytes.Buffer, tag, text string, now time.Time) {
	fmt.Fprintf(b, "%s%s · %s\n", historyHeader, now.Format(time.RFC3339), tag)
	for _, line := range strings.Split(strings.TrimRight(strings.ToValidUTF8(text, "\uFFFD"), "\n"), "\n") {
		// A line that looks like an entry header would split the entry
		// when the file is read back.
		if strings.HasPrefix(line, "##") {
			b.WriteByte('\\')
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

// historyHeader starts every HISTORY.md entry.
const historyHeader = "## "

// writeFileAtomic replaces name with b durably (package atomicfile: temp
// file, file sync, rename, directory sync), creating the directory (0700)
// if needed.
func writeFileAtomic(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(name, b, 0o600)
}
