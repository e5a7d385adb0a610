package term

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// typed is a byteSource that replays keystrokes, then ends.
type typed struct{ b []byte }

func (t *typed) readByte(context.Context) (byte, error) {
	if len(t.b) == 0 {
		return 0, io.EOF
	}
	c := t.b[0]
	t.b = t.b[1:]
	return c, nil
}

func TestEditorKeys(t *testing.T) {
	const (
		left, right = "\x1b[D", "\x1b[C"
		up, down    = "\x1b[A", "\x1b[B"
		home, end   = "\x1b[H", "\x1b[F"
		home2, del  = "\x1b[1~", "\x1b[3~"
		altEnter    = "\x1b\r"
	)
	for _, tt := range []struct {
		name    string
		history []string
		keys    string
		want    string
		wantErr error
	}{
		{name: "plain", keys: "hello\r", want: "hello"},
		{name: "backspace", keys: "hel\x7f\x7fello\r", want: "hello"},
		{name: "left and insert", keys: "hllo" + left + left + left + "e\r", want: "hello"},
		{name: "home end", keys: "ello" + home + "h" + end + "!\r", want: "hello!"},
		{name: "csi tilde home and delete", keys: "xhello" + home2 + del + "\r", want: "hello"},
		{name: "right past end is ignored", keys: "ab" + right + right + "c\r", want: "abc"},
		{name: "alt enter", keys: "one" + altEnter + "two\r", want: "one\ntwo"},
		{name: "home on second line", keys: "one" + altEnter + "wo" + home + "t\r", want: "one\ntwo"},
		{name: "wide chars", keys: "日本" + left + "x\r", want: "日x本"},
		{name: "emoji backspace", keys: "a😀\x7fb\r", want: "ab"},
		{name: "history up", history: []string{"first", "second"}, keys: up + up + "!\r", want: "first!"},
		{name: "history down back to draft", history: []string{"first"}, keys: "dra" + up + down + "ft\r", want: "draft"},
		{name: "history up at top stays", history: []string{"only"}, keys: up + up + up + "\r", want: "only"},
		{name: "tab one match", keys: "/ex\t\r", want: "/exit "},
		{name: "tab common prefix", keys: "/s\t\r", want: "/session"},
		{name: "tab no slash", keys: "ex\t\r", want: "ex"},
		{name: "ctrl-u ctrl-k", keys: "abcdef" + left + left + "\x0b" + home + right + "\x15Z\r", want: "Zbcd"},
		{name: "ctrl-w", keys: "one two\x17three\r", want: "one three"},
		{name: "ctrl-d deletes forward", keys: "ab" + home + "\x04\r", want: "b"},
		{name: "ctrl-d on empty leaves", keys: "\x04", wantErr: io.EOF},
		{name: "ctrl-c", keys: "abc\x03", wantErr: errInterrupted},
		{name: "end of input", keys: "abc", wantErr: io.EOF},
		{name: "unknown escape ignored", keys: "a\x1b[99zb\r", want: "ab"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &editor{
				in:       &typed{b: []byte(tt.keys)},
				out:      &out,
				width:    func() int { return 20 },
				history:  &history{entries: tt.history},
				complete: func() []string { return []string{"/exit", "/quit", "/sessions", "/session"} },
			}
			got, err := e.readLine(context.Background(), "m> ")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("line = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEditorTabListsAmbiguous(t *testing.T) {
	var out bytes.Buffer
	e := &editor{
		in: &typed{b: []byte("/\t\r")}, out: &out, width: func() int { return 40 },
		complete: func() []string { return []string{"/quit", "/exit"} },
	}
	if _, err := e.readLine(context.Background(), "> "); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "/exit  /quit\r\n") {
		t.Fatalf("candidates not listed: %q", out.String())
	}
}

func TestEditorTypingEchoesOnly(t *testing.T) {
	// Plain typing at the end of a short line writes the characters and
	// nothing else: the prompt is drawn once.
	var out bytes.Buffer
	e := &editor{in: &typed{b: []byte("abc\r")}, out: &out, width: func() int { return 40 }}
	if _, err := e.readLine(context.Background(), "model> "); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "model> "); n != 2 { // first draw, and the final redraw on Enter
		t.Fatalf("prompt drawn %d times: %q", n, out.String())
	}
	if !strings.Contains(out.String(), "model> abc") {
		t.Fatalf("echo missing: %q", out.String())
	}
}

func TestLayout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		prompt  string
		buf     string
		cols    int
		end     cell
		wrapped bool
		at      map[int]cell
	}{
		{name: "short", prompt: "> ", buf: "abc", cols: 10, end: cell{0, 5}},
		{name: "exact edge", prompt: "> ", buf: "abcdefgh", cols: 10, end: cell{1, 0}, wrapped: true},
		{name: "wraps", prompt: "> ", buf: "abcdefghij", cols: 10, end: cell{1, 2}, at: map[int]cell{8: {1, 0}}},
		{name: "wide fits", prompt: "> ", buf: "日本語", cols: 10, end: cell{0, 8}, at: map[int]cell{1: {0, 4}}},
		// A wide character with one column left moves whole to the next row.
		{name: "wide at edge", prompt: "> ", buf: "abcdefg日", cols: 10, end: cell{1, 2}, at: map[int]cell{7: {1, 0}}},
		{name: "emoji", prompt: "", buf: "😀😀😀", cols: 5, end: cell{1, 2}, at: map[int]cell{2: {1, 0}}},
		{name: "newline", prompt: "> ", buf: "ab\ncd", cols: 10, end: cell{1, 2}, at: map[int]cell{3: {1, 0}}},
		{name: "combining", prompt: "", buf: "e\u0301x", cols: 10, end: cell{0, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lay := layout(&lineState{prompt: tt.prompt, buf: []rune(tt.buf)}, tt.cols)
			if lay.end != tt.end || lay.endWrapped != tt.wrapped {
				t.Fatalf("end = %+v wrapped=%v, want %+v wrapped=%v", lay.end, lay.endWrapped, tt.end, tt.wrapped)
			}
			for i, c := range tt.at {
				if lay.at[i] != c {
					t.Errorf("at[%d] = %+v, want %+v", i, lay.at[i], c)
				}
			}
		})
	}
}

func TestRuneWidth(t *testing.T) {
	for r, want := range map[rune]int{'a': 1, 'é': 1, '日': 2, '한': 2, '😀': 2, '\u0301': 0, '\u200b': 0, 'Ａ': 2, '→': 1} {
		if got := runeWidth(r); got != want {
			t.Errorf("runeWidth(%q) = %d, want %d", r, got, want)
		}
	}
}

func TestHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", HistoryFile)
	h, err := loadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	h.add("one")
	h.add("one") // a repeat is not stored twice
	h.add("two\nlines")
	h.add("key sk-abcdefghijklmnopqrstuvwxyz0123456789")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("history mode %v, want 0600", fi.Mode().Perm())
	}
	again, err := loadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if again.len() != 3 || again.at(0) != "one" || again.at(1) != "two\nlines" {
		t.Fatalf("reloaded %q", again.entries)
	}
	if strings.Contains(again.at(2), "abcdefghijklmnop") {
		t.Fatalf("credential stored in history: %q", again.at(2))
	}
}

func TestHistoryTightensMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFile)
	if err := os.WriteFile(path, []byte("\"old\"\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := loadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.len() != 1 {
		t.Fatalf("entries %q, want the one valid line", h.entries)
	}
	h.add("new")
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}
