package apiserver

import (
	"bytes"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDeltaFrameMatchesChunkEncoding holds the hand-assembled delta event
// to the bytes encoding the chunk itself writes, for text that needs every
// kind of escaping, with and without the role and the usage member.
func TestDeltaFrameMatchesChunkEncoding(t *testing.T) {
	texts := []string{"", "plain words ", "quotes \" and \\ backslash", "<b>&amp;</b>", "line\nbreak\ttab\r\x00\x1f",
		"unicode ✓ é 日本", "separators \u2028 \u2029", "invalid \xff\xfe utf-8", "emoji 🙂"}
	for _, usage := range []bool{false, true} {
		st := newStream(httptest.NewRecorder(), time.Unix(1700000000, 0), usage)
		for _, role := range []bool{true, false} {
			for _, text := range texts {
				d := map[string]any{"content": text}
				if role {
					d["role"] = "assistant"
				}
				want, err := frame(st.chunk(d, nil))
				if err != nil {
					t.Fatal(err)
				}
				got, err := st.appendDelta(nil, text, role)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("usage %v, role %v, %q:\n got %s\nwant %s", usage, role, text, got, want)
				}
			}
		}
	}
}

func TestDeltaFrameSendsRoleOnce(t *testing.T) {
	st := newStream(httptest.NewRecorder(), time.Now(), false)
	first, _ := st.deltaFrame("a")
	second, _ := st.deltaFrame("b")
	if !bytes.Contains(first, []byte(roleMember)) || bytes.Contains(second, []byte(roleMember)) {
		t.Fatalf("the role belongs to the first delta only:\n%s%s", first, second)
	}
}

// BenchmarkDeltaFrame is the cost of one streamed token's event.
func BenchmarkDeltaFrame(b *testing.B) {
	st := newStream(httptest.NewRecorder(), time.Now(), true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.deltaFrame("a token "); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstDeltaFrame is what a stream costs before its first byte
// can be queued: the stream itself and its first event, role included.
func BenchmarkFirstDeltaFrame(b *testing.B) {
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		st := newStream(rec, time.Now(), false)
		if _, err := st.deltaFrame("Hello"); err != nil {
			b.Fatal(err)
		}
	}
}

// writeCounter is a ResponseWriter that counts its writes.
type writeCounter struct {
	*httptest.ResponseRecorder
	writes int
}

func (w *writeCounter) Write(b []byte) (int, error) {
	w.writes++
	return w.ResponseRecorder.Write(b)
}

// TestFinishIsOneWrite: the finish chunk, the usage chunk and [DONE] (and
// the role, when no text came first) leave in a single write, with the
// bytes each event alone would have.
func TestFinishIsOneWrite(t *testing.T) {
	for _, roleSent := range []bool{false, true} {
		w := &writeCounter{ResponseRecorder: httptest.NewRecorder()}
		st := newStream(w, time.Unix(1700000000, 0), true)
		st.roleSent = roleSent
		st.start()
		if err := st.finish("stop", Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}); err != nil {
			t.Fatal(err)
		}
		if w.writes != 1 {
			t.Fatalf("role sent %v: %d writes, want 1", roleSent, w.writes)
		}
		var want []byte
		if !roleSent {
			f, _ := frame(st.chunk(map[string]any{"content": "", "role": "assistant"}, nil))
			want = append(want, f...)
		}
		stop := "stop"
		f, _ := frame(st.chunk(map[string]any{}, &stop))
		want = append(want, f...)
		f, _ = frame(&chunk{ID: st.id, Object: "chat.completion.chunk", Created: st.created, Model: ModelID, Choices: []chunkChoice{},
			Usage: Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}})
		want = append(append(want, f...), "data: [DONE]\n\n"...)
		if got := w.Body.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("role sent %v:\n got %s\nwant %s", roleSent, got, want)
		}
	}
}
