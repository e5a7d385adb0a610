package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func newTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := NewStore(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sampleMessages() []Message {
	ts := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return []Message{
		{Role: "system", Content: "You are joshbot."},
		{Role: "user", Content: "What is 2+2? <b>&</b> ünïcødé 🚀", Time: ts},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "calc", Arguments: `{"expr":"2+2"}`}}, Time: ts.Add(time.Second)},
		{Role: "tool", ToolCallID: "c1", Name: "calc", Content: "4\nline two", Time: ts.Add(2 * time.Second)},
		{Role: "assistant", Content: "4", Time: ts.Add(3 * time.Second)},
	}
}

func TestRoundTrip(t *testing.T) {
	s := newTestStore(t)
	sess := &Session{Key: "telegram:12345", Messages: sampleMessages()}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if sess.Updated.IsZero() || !sess.Created.Equal(sampleMessages()[1].Time) {
		t.Errorf("after Save: Created %v, Updated %v", sess.Created, sess.Updated)
	}
	got, err := s.Load("telegram:12345")
	if err != nil {
		t.Fatal(err)
	}
	if got.Key != "telegram:12345" {
		t.Errorf("Key = %q", got.Key)
	}
	if !reflect.DeepEqual(got.Messages, sampleMessages()) {
		t.Errorf("messages differ:\n got %+v\nwant %+v", got.Messages, sampleMessages())
	}
	if !got.Created.Equal(sampleMessages()[1].Time) {
		t.Errorf("Created = %v, want first message time", got.Created)
	}
	if got.Updated.IsZero() {
		t.Error("Updated is zero after load of saved session")
	}

	path, _ := s.Path("telegram:12345")
	if filepath.Base(path) != "telegram_12345.jsonl" {
		t.Errorf("file name = %q", filepath.Base(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(sampleMessages()) {
		t.Fatalf("file has %d lines, want one per message:\n%s", len(lines), data)
	}
	if !strings.Contains(lines[1], "<b>&</b>") {
		t.Errorf("HTML characters were escaped: %s", lines[1])
	}
	if strings.Contains(lines[0], `"ts"`) {
		t.Errorf("zero time was written: %s", lines[0])
	}

	// Saving fewer messages replaces rather than appends.
	got.Messages = got.Messages[:1]
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load("telegram:12345")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Messages) != 1 {
		t.Errorf("after shrinking save, %d messages", len(again.Messages))
	}
}

func TestLoadMissing(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.Load("api:nobody")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Key != "api:nobody" || sess.Messages != nil || !sess.Created.IsZero() || !sess.Updated.IsZero() {
		t.Errorf("Load of missing session = %+v, want empty", sess)
	}
	if keys, _ := s.Keys(); len(keys) != 0 {
		t.Errorf("Load created a session: %v", keys)
	}
	// Nothing at all is written for a session that does not exist, not
	// even its lock file (the sweep's marker is the store's opening's).
	path, _ := s.Path("api:nobody")
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != sweepMarker {
			t.Errorf("Load of a missing session left %s behind", e.Name())
		}
	}
}

func TestInvalidKeyRejected(t *testing.T) {
	s := newTestStore(t)
	for _, key := range []string{"../x", "a/b", "", "api"} {
		if _, err := s.Load(key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Load(%q) err = %v", key, err)
		}
		if err := s.Save(&Session{Key: key}); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Save(%q) err = %v", key, err)
		}
		if _, err := s.Append(key, Message{Role: "user"}); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Append(%q) err = %v", key, err)
		}
		if _, err := s.Path(key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Path(%q) err = %v", key, err)
		}
	}
	if err := s.Save(nil); err == nil {
		t.Error("Save(nil) succeeded")
	}
	var zero Store
	if _, err := zero.Load("api:x"); err == nil {
		t.Error("zero Store Load succeeded")
	}
	if _, err := NewStore(""); err == nil {
		t.Error("NewStore(\"\") succeeded")
	}
}

func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkMode(t, dir, 0o700)

	if err := s.Save(&Session{Key: "api:alice", Messages: sampleMessages()}); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path("api:alice")
	checkMode(t, path, 0o600)

	if err := os.WriteFile(path, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("api:alice"); err != nil {
		t.Fatal(err)
	}
	checkMode(t, path+".corrupt", 0o600)
	checkMode(t, path, 0o600)

	fresh := filepath.Join(t.TempDir(), "a", "b")
	if _, err := NewStore(fresh); err != nil {
		t.Fatal(err)
	}
	checkMode(t, fresh, 0o700)
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s has mode %v, want %v", filepath.Base(path), got, want)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		// Lock files and the sweep's marker are meant to stay;
		// temporary files are not.
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".lock") || n == sweepMarker {
			continue
		}
		names = append(names, e.Name())
	}
	return names
}

func TestSaveLeavesNoTempFiles(t *testing.T) {
	s := newTestStore(t)
	for i := range 5 {
		sess := &Session{Key: "api:alice", Messages: sampleMessages()[:i+1]}
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	if names := dirNames(t, s.Dir()); !reflect.DeepEqual(names, []string{"api_alice.jsonl"}) {
		t.Errorf("directory holds %v", names)
	}

	// A failing save must leave the old file intact and remove its
	// temporary file.
	huge := &Session{Key: "api:alice", Messages: []Message{{Role: "tool", Content: strings.Repeat("x", MaxLineBytes)}}}
	if err := s.Save(huge); err == nil || !strings.Contains(err.Error(), "MaxLineBytes") {
		t.Fatalf("oversized Save err = %v", err)
	}
	if !huge.Updated.IsZero() {
		t.Error("failed Save set Updated")
	}
	if names := dirNames(t, s.Dir()); !reflect.DeepEqual(names, []string{"api_alice.jsonl"}) {
		t.Errorf("after failed save, directory holds %v", names)
	}
	got, err := s.Load("api:alice")
	if err != nil || len(got.Messages) != 5 {
		t.Fatalf("after failed save: %d messages, err %v", len(got.Messages), err)
	}
}

// captureLogs redirects slog's default logger for the duration of the test.
func captureLogs(t *testing.T) *syncBuffer {
	t.Helper()
	buf := &syncBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func jsonLine(t *testing.T, m Message) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestLoadQuarantinesCorruptLines(t *testing.T) {
	good1 := jsonLine(t, Message{Role: "user", Content: "one"})
	good2 := jsonLine(t, Message{Role: "assistant", Content: "two"})
	good3 := jsonLine(t, Message{Role: "user", Content: "three"})
	tests := []struct {
		name     string
		file     string
		want     []string // contents of the good messages, in order
		corrupt  string   // expected .corrupt contents
		repaired string   // expected session file afterwards
		torn     int      // of the .corrupt lines, those that were a torn last line
	}{
		{
			name:     "torn last line",
			file:     good1 + good2 + `{"role":"user","cont`,
			want:     []string{"one", "two"},
			corrupt:  `{"role":"user","cont` + "\n",
			repaired: good1 + good2,
			torn:     1,
		},
		{
			name:     "garbage middle line",
			file:     good1 + "\x00\x00not json at all}\n" + good2,
			want:     []string{"one", "two"},
			corrupt:  "\x00\x00not json at all}\n",
			repaired: good1 + good2,
		},
		{
			name:     "invalid UTF-8",
			file:     good1 + "{\"role\":\"user\",\"content\":\"bad \xff\xfe here\"}\n" + good2,
			want:     []string{"one", "two"},
			corrupt:  "{\"role\":\"user\",\"content\":\"bad \xff\xfe here\"}\n",
			repaired: good1 + good2,
		},
		{
			name:     "several bad lines",
			file:     "[1,2]\n" + good1 + "null\n" + good2 + "{\"content\":\"no role\"}\n" + good3 + `{"role":"x"} trailing` + "\n" + "\xff",
			want:     []string{"one", "two", "three"},
			corrupt:  "[1,2]\nnull\n{\"content\":\"no role\"}\n" + `{"role":"x"} trailing` + "\n\xff\n",
			repaired: good1 + good2 + good3,
			torn:     1,
		},
		{
			name:     "blank lines are not corruption",
			file:     "\n" + good1 + "  \r\n" + good2,
			want:     []string{"one", "two"},
			repaired: "\n" + good1 + "  \r\n" + good2,
		},
		{
			name:     "good last line without newline",
			file:     good1 + strings.TrimSuffix(good2, "\n"),
			want:     []string{"one", "two"},
			repaired: good1 + strings.TrimSuffix(good2, "\n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := captureLogs(t)
			s := newTestStore(t)
			path, _ := s.Path("telegram:42")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			sess, err := s.Load("telegram:42")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range sess.Messages {
				got = append(got, m.Content)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("loaded %q, want %q", got, tt.want)
			}

			corrupt, err := os.ReadFile(path + ".corrupt")
			if tt.corrupt == "" {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf(".corrupt exists (%v): %q", err, corrupt)
				}
				if logs.String() != "" {
					t.Errorf("unexpected log: %s", logs)
				}
			} else {
				if string(corrupt) != tt.corrupt {
					t.Errorf(".corrupt = %q, want %q", corrupt, tt.corrupt)
				}
				// A torn last line is the end of an interrupted save, not
				// damage: preserved, but an info line when it is all.
				lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
				damaged := strings.Count(tt.corrupt, "\n") - tt.torn
				skipped := fmt.Sprintf("skipped=%d", damaged)
				switch {
				case damaged == 0:
					if len(lines) != 1 || !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], "interrupted") {
						t.Errorf("log = %q, want one info line about an interrupted save", logs)
					}
				case len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") ||
					!strings.Contains(lines[0], "session=telegram:42") || !strings.Contains(lines[0], skipped):
					t.Errorf("log = %q, want one warning naming the session and %s", logs, skipped)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.repaired {
				t.Errorf("session file = %q, want %q", data, tt.repaired)
			}

			// Quarantine happens once: a second load finds nothing new.
			if _, err := s.Load("telegram:42"); err != nil {
				t.Fatal(err)
			}
			again, _ := os.ReadFile(path + ".corrupt")
			if string(again) != tt.corrupt {
				t.Errorf("second load changed .corrupt to %q", again)
			}
			if names := dirNames(t, s.Dir()); len(names) > 2 {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

func TestLoadOverlongLine(t *testing.T) {
	captureLogs(t)
	s := newTestStore(t)
	path, _ := s.Path("api:big")
	good := jsonLine(t, Message{Role: "user", Content: "fine"})
	// A valid message whose line is just over the limit: it must be
	// quarantined even though it would decode.
	long := jsonLine(t, Message{Role: "tool", Content: strings.Repeat("y", MaxLineBytes)})
	// A line with no newline at all, as a damaged file might have.
	tail := strings.Repeat("z", MaxLineBytes+100)
	file := good + long + good + tail
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load("api:big")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != 2 {
		t.Fatalf("loaded %d messages, want 2", len(sess.Messages))
	}
	corrupt, err := os.ReadFile(path + ".corrupt")
	if err != nil {
		t.Fatal(err)
	}
	if string(corrupt) != long+tail+"\n" {
		t.Errorf(".corrupt has %d bytes, want %d", len(corrupt), len(long+tail)+1)
	}
}

func TestConcurrentSaveNeverTorn(t *testing.T) {
	s := newTestStore(t)
	const key = "api:race"
	path, _ := s.Path(key)
	const writers = 16
	const rounds = 20

	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	// Read the file directly, bypassing the Store's locks, so that only the
	// atomic rename protects the reader from partial writes.
	go func() {
		var err error
		defer func() { readerDone <- err }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, rerr := os.ReadFile(path)
			if errors.Is(rerr, os.ErrNotExist) {
				continue
			}
			if rerr != nil {
				err = rerr
				return
			}
			var msgs []Message
			bad, _ := readMessages(bytes.NewReader(data), &msgs)
			if len(bad) > 0 || len(msgs) == 0 {
				err = fmt.Errorf("reader saw a torn file of %d bytes (%d bad lines)", len(data), len(bad))
				return
			}
			for _, m := range msgs {
				if m.Name != msgs[0].Name {
					err = fmt.Errorf("file mixes writers %q and %q", msgs[0].Name, m.Name)
					return
				}
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				var msgs []Message
				for i := range 50 + w*10 + r {
					msgs = append(msgs, Message{Role: "user", Name: fmt.Sprint("w", w), Content: strings.Repeat("x", i*7)})
				}
				if err := s.Save(&Session{Key: key, Messages: msgs}); err != nil {
					t.Error(err)
					return
				}
				sess, err := s.Load(key)
				if err != nil {
					t.Error(err)
					return
				}
				if len(sess.Messages) == 0 {
					t.Error("Load returned no messages during concurrent saves")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-readerDone; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".corrupt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("concurrent saves produced a .corrupt file (%v)", err)
	}
	if names := dirNames(t, s.Dir()); !reflect.DeepEqual(names, []string{"api_race.jsonl"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestAppendConcurrent(t *testing.T) {
	s := newTestStore(t)
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Append("api:bob", Message{Role: "user", Content: fmt.Sprint(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	sess, err := s.Load("api:bob")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != n {
		t.Fatalf("%d messages after %d appends", len(sess.Messages), n)
	}
	for _, m := range sess.Messages {
		if m.Time.IsZero() {
			t.Fatal("Append did not stamp Time")
		}
	}
	if s.files.len() != 0 {
		t.Errorf("file lock map holds %d entries", s.files.len())
	}
}

func TestKeys(t *testing.T) {
	s := newTestStore(t)
	keys := []string{"telegram:12345", "api:alice", "api:Alice", "discord:g:u_1"}
	for _, k := range keys {
		if _, err := s.Append(k, Message{Role: "user", Content: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	// Files that no key maps to, and the store's own side files, are not
	// sessions.
	for _, name := range []string{"README.md", "API_x.jsonl", ".api_x.jsonl.123.tmp", "api_alice.jsonl.corrupt", "notes.jsonl"} {
		if err := os.WriteFile(filepath.Join(s.Dir(), name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s.Dir(), "web_x.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := s.Keys()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api:Alice", "api:alice", "discord:g:u_1", "telegram:12345"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
	a, _ := s.Load("api:alice")
	b, _ := s.Load("api:Alice")
	if len(a.Messages) != 1 || len(b.Messages) != 1 {
		t.Errorf("keys differing in case share a file: %d and %d messages", len(a.Messages), len(b.Messages))
	}
}

func TestStageWritesWhatSaveWould(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{Key: "cli:stage", Messages: []Message{{Role: "user", Content: "first words"}}}
	if err := s.Stage(sess); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("cli:stage")
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content != "first words" {
		t.Fatalf("staged session = %+v, %v", got, err)
	}
	path, _ := s.Path("cli:stage")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("staged file mode %v", fi.Mode().Perm())
	}
	if err := s.Stage(nil); err == nil {
		t.Fatal("staging a nil session succeeded")
	}
}
