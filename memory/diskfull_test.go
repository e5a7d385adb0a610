package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fullDisk stands in for a filesystem that has budget bytes left for the
// files whose names contain match: a write past it stores what fits and
// fails with ENOSPC, as write(2) does on a full disk.
type fullDisk struct {
	match  string
	budget int
}

func (d *fullDisk) wrap(name string, w io.Writer) io.Writer {
	if !strings.Contains(name, d.match) {
		return w
	}
	return writerFunc(func(p []byte) (int, error) {
		if len(p) <= d.budget {
			d.budget -= len(p)
			return w.Write(p)
		}
		n, _ := w.Write(p[:d.budget])
		d.budget = 0
		return n, &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// longSession is a session worth compacting: ten exchanges and a question.
func longSession(key string) *Session {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var msgs []Message
	for i := range 10 {
		msgs = append(msgs,
			Message{Role: "user", Content: fmt.Sprintf("question %d", i), Time: ts.Add(time.Duration(2*i) * time.Second)},
			Message{Role: "assistant", Content: fmt.Sprintf("answer %d", i), Time: ts.Add(time.Duration(2*i+1) * time.Second)})
	}
	msgs = append(msgs, Message{Role: "user", Content: "now", Time: ts.Add(time.Minute)})
	return &Session{Key: key, Messages: msgs}
}

// archived returns how often each message content occurs in key's
// archive, and fails on a line that does not decode.
func archived(t *testing.T, s *Store, key string) map[string]int {
	t.Helper()
	path, _ := s.ArchivePath(key)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	bad, err := readMessages(bytes.NewReader(b), &msgs)
	if err != nil || len(bad) > 0 {
		t.Fatalf("archive has %d torn or unreadable lines (%v):\n%s", len(bad), err, b)
	}
	n := map[string]int{}
	for _, m := range msgs {
		n[m.Content]++
	}
	return n
}

// A disk that fills up in the middle of an archive append leaves the
// archive as it was: no torn line, and the retry writes each message once.
func TestArchiveAppendIsAtomic(t *testing.T) {
	s := newTestStore(t)
	sess := longSession("cli:full")
	if err := s.Archive(sess.Key, sess.Messages[:2]); err != nil {
		t.Fatal(err)
	}
	path, _ := s.ArchivePath(sess.Key)
	before, _ := os.ReadFile(path)

	disk := &fullDisk{match: ".history.jsonl", budget: 40}
	s.wrapWriter = disk.wrap
	if err := s.Archive(sess.Key, sess.Messages[2:6]); err == nil {
		t.Fatal("Archive on a full disk succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatalf("a failed append changed the archive:\nbefore %q\nafter  %q", before, after)
	}
	s.wrapWriter = nil
	if err := s.Archive(sess.Key, sess.Messages[2:6]); err != nil {
		t.Fatal(err)
	}
	for c, n := range archived(t, s, sess.Key) {
		if n != 1 {
			t.Errorf("%q archived %d times", c, n)
		}
	}
}

// Compaction on a full disk, tried again and again as the agent does
// before each turn, never archives a message twice: neither when the
// archive append fails, nor when the archive is written and the session
// save after it fails, nor after a crash between the two.
func TestCompactOnFullDiskNeverArchivesTwice(t *testing.T) {
	s := newTestStore(t)
	sess := longSession("cli:compact")
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)

	// The archive fits, the session's rewrite does not.
	for range 3 {
		s.wrapWriter = (&fullDisk{match: ".jsonl.", budget: 10}).wrap
		if err := s.Compact(sess, CompactionCut(sess.Messages, KeepRecent), "summary", at); err == nil {
			t.Fatal("Compact succeeded with the session save failing")
		}
	}
	// The archive append fails half way.
	for range 3 {
		s.wrapWriter = (&fullDisk{match: ".history.jsonl", budget: 30}).wrap
		if err := s.Compact(sess, CompactionCut(sess.Messages, KeepRecent), "summary", at); err == nil {
			t.Fatal("Compact succeeded with the archive append failing")
		}
	}
	// A crash after the archive append, before the session save: the
	// archive already holds the start of what the next compaction moves.
	s.wrapWriter = nil
	if err := s.Archive(sess.Key, sess.Messages[:4]); err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != 21 {
		t.Fatalf("failed compactions changed the session: %d messages", len(sess.Messages))
	}
	cut := CompactionCut(sess.Messages, KeepRecent)
	if err := s.Compact(sess, cut, "summary", at); err != nil {
		t.Fatal(err)
	}
	got := archived(t, s, sess.Key)
	if len(got) != cut {
		t.Errorf("archive holds %d distinct messages, want %d", len(got), cut)
	}
	for c, n := range got {
		if n != 1 {
			t.Errorf("%q archived %d times", c, n)
		}
	}
	m, err := s.LoadMeta(sess.Key)
	if err != nil || m.ArchivedMessages != cut || m.Compactions != 1 {
		t.Errorf("meta %+v %v, want %d archived in 1 compaction", m, err, cut)
	}
}

// runFullDiskChild is the child of TestCompactOnARealFullDisk, run in its
// own mount namespace with a small tmpfs at CHILD_DIR: it fills the disk,
// compacts again and again, and checks the archive.
func runFullDiskChild() int {
	fail := func(f string, args ...any) int {
		fmt.Fprintf(os.Stderr, f+"\n", args...)
		return 1
	}
	dir := os.Getenv("CHILD_DIR")
	s, err := NewStore(dir + "/sessions")
	if err != nil {
		return fail("%v", err)
	}
	sess := longSession("cli:tmpfs")
	if err := s.Save(sess); err != nil {
		return fail("%v", err)
	}
	if err := s.Archive(sess.Key, sess.Messages[:2]); err != nil {
		return fail("%v", err)
	}
	sess.Messages = sess.Messages[2:]
	if err := s.Save(sess); err != nil {
		return fail("%v", err)
	}
	filler, err := os.Create(dir + "/filler")
	if err != nil {
		return fail("%v", err)
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	// Leave less room than the compaction needs, but some: the
	// archive append gets part way.
	info, _ := filler.Stat()
	filler.Truncate(info.Size() - 100)
	filler.Sync()
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	failures := 0
	for range 8 {
		if err := s.Compact(sess, CompactionCut(sess.Messages, KeepRecent), "summary", at); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				return fail("compaction failed, but not for the full disk: %v", err)
			}
			failures++
		}
	}
	if failures != 8 {
		return fail("%d of 8 compactions failed on the full disk", failures)
	}
	filler.Close()
	os.Remove(dir + "/filler")
	cut := CompactionCut(sess.Messages, KeepRecent)
	if err := s.Compact(sess, cut, "summary", at); err != nil {
		return fail("compaction after freeing space: %v", err)
	}
	path, _ := s.ArchivePath(sess.Key)
	b, err := os.ReadFile(path)
	if err != nil {
		return fail("%v", err)
	}
	var msgs []Message
	bad, err := readMessages(bytes.NewReader(b), &msgs)
	if err != nil || len(bad) > 0 {
		return fail("archive has %d torn lines (%v)", len(bad), err)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.Content] {
			return fail("%q archived twice", m.Content)
		}
		seen[m.Content] = true
	}
	if len(msgs) != 2+cut {
		return fail("archive holds %d messages, want %d", len(msgs), 2+cut)
	}
	return 0
}

// TestCompactOnARealFullDisk does what TestCompactOnFullDiskNeverArchivesTwice
// does with a real full filesystem: a 512 KiB tmpfs mounted in a private
// mount namespace (root only).
func TestCompactOnARealFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o size=512k tmpfs "$CHILD_DIR" && exec "$0" -test.run='^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=fulldisk", "CHILD_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
