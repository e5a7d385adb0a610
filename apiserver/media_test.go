package apiserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeEmbedder returns, for each input, a vector of its length and its
// first byte, so a vector can be matched to its input. It can also return a
// fixed result or error.
type fakeEmbedder struct {
	mu    sync.Mutex
	calls int
	res   *Embeddings
	err   error
}

func (f *fakeEmbedder) Embed(_ context.Context, in []string) (*Embeddings, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.err != nil || f.res != nil {
		return f.res, f.err
	}
	out := &Embeddings{PromptTokens: len(in) * 3}
	for _, s := range in {
		out.Vectors = append(out.Vectors, []float32{float32(len(s)), float32(s[0]), 0.5})
	}
	return out, nil
}

type embeddingsReply struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string          `json:"object"`
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

func TestEmbeddingsNotConfigured(t *testing.T) {
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}})
	w := do(t, s, "POST", "/v1/embeddings", testKey, `{"input":"x"}`)
	if w.Code != 501 || errorMessage(t, w) != "embeddings are not configured" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	// A program says how its operator enables them.
	hinted, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Setup: Setup{Embedder: "set the embedder up"}})
	if w := do(t, hinted, "POST", "/v1/embeddings", testKey, `{"input":"x"}`); errorMessage(t, w) != "embeddings are not configured: set the embedder up" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if w := do(t, s, "POST", "/v1/embeddings", "", `{"input":"x"}`); w.Code != 401 {
		t.Fatalf("unauthenticated: status %d", w.Code)
	}
}

func TestEmbeddings(t *testing.T) {
	emb := &fakeEmbedder{}
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Embedder: emb})
	t.Run("string input, float", func(t *testing.T) {
		w := do(t, s, "POST", "/v1/embeddings", testKey, `{"model":"whatever","input":"hello"}`)
		var r embeddingsReply
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if r.Object != "list" || len(r.Data) != 1 || r.Data[0].Index != 0 || string(r.Data[0].Embedding) != "[5,104,0.5]" || r.Usage.PromptTokens != 3 {
			t.Fatalf("reply %s", w.Body)
		}
	})
	t.Run("array input, base64", func(t *testing.T) {
		w := do(t, s, "POST", "/v1/embeddings", testKey, `{"input":["a","bb","ccc"],"encoding_format":"base64"}`)
		var r embeddingsReply
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || w.Code != 200 || len(r.Data) != 3 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		for i, d := range r.Data {
			var b64 string
			if err := json.Unmarshal(d.Embedding, &b64); err != nil {
				t.Fatalf("data[%d] is not a base64 string: %s", i, d.Embedding)
			}
			raw, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || len(raw) != 12 {
				t.Fatalf("data[%d]: %v, %d bytes", i, err, len(raw))
			}
			first := math.Float32frombits(binary.LittleEndian.Uint32(raw))
			if d.Index != i || first != float32(i+1) {
				t.Fatalf("data[%d] has index %d and length component %v: vector attached to the wrong input", i, d.Index, first)
			}
		}
	})
	for _, tt := range []struct {
		name, body string
		want       int
		says       string
	}{
		{"missing input", `{}`, 400, "input is missing"},
		{"empty array", `{"input":[]}`, 400, "empty array"},
		{"token arrays", `{"input":[[1,2,3]]}`, 400, "token arrays"},
		{"empty string", `{"input":["a",""]}`, 400, "input[1] is empty"},
		{"bad format", `{"input":"a","encoding_format":"int8"}`, 400, "float or base64"},
		{"too many", `{"input":[` + strings.Repeat(`"a",`, MaxEmbeddingInputs) + `"a"]}`, 400, "limit of 128"},
		{"too long", `{"input":["a","` + strings.Repeat("x", MaxEmbeddingInputBytes+1) + `"]}`, 400, "input[1]"},
		{"malformed", `{"input":`, 400, "not valid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := emb.calls
			w := do(t, s, "POST", "/v1/embeddings", testKey, tt.body)
			if w.Code != tt.want || !strings.Contains(errorMessage(t, w), tt.says) {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if emb.calls != before {
				t.Fatal("the provider was dialled for a request refused by a cap")
			}
		})
	}
	exactly := `{"input":[` + strings.Repeat(`"a",`, MaxEmbeddingInputs-1) + `"a"]}`
	if w := do(t, s, "POST", "/v1/embeddings", testKey, exactly); w.Code != 200 {
		t.Fatalf("exactly %d inputs: %d", MaxEmbeddingInputs, w.Code)
	}
}

func TestEmbeddingsUpstreamFailures(t *testing.T) {
	for _, tt := range []struct {
		name string
		emb  *fakeEmbedder
		says string
	}{
		{"wrong count", &fakeEmbedder{res: &Embeddings{Vectors: [][]float32{{1}}}}, "1 vectors for 2 inputs"},
		{"public error", &fakeEmbedder{err: &Error{Message: "embeddings provider openai failed: HTTP 500", Err: errors.New("secret body")}}, "HTTP 500"},
		{"plain error", &fakeEmbedder{err: errors.New("openai: HTTP 500: secret body")}, "failed upstream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Embedder: tt.emb})
			w := do(t, s, "POST", "/v1/embeddings", testKey, `{"input":["a","b"]}`)
			msg := errorMessage(t, w)
			if w.Code != 502 || !strings.Contains(msg, tt.says) || strings.Contains(msg, "secret") {
				t.Fatalf("status %d, message %q", w.Code, msg)
			}
		})
	}
}

type fakeTranscriber struct {
	mu    sync.Mutex
	got   []*Audio
	text  string
	err   error
	calls int
}

func (f *fakeTranscriber) Transcribe(_ context.Context, a *Audio) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.got = append(f.got, a)
	return f.text, f.err
}

// upload builds a multipart body with a file part and extra fields.
func upload(t *testing.T, filename, ctype string, data []byte, fields map[string]string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if data != nil {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name="file"; filename=%q`, filename)}
		h["Content-Type"] = []string{ctype}
		pw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(data)
	}
	mw.Close()
	return mw.FormDataContentType(), &buf
}

func postUpload(t *testing.T, s *Server, ctype string, body *bytes.Buffer) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("POST", "/v1/audio/transcriptions", body)
	r.Header.Set("Authorization", "Bearer "+testKey)
	r.Header.Set("Content-Type", ctype)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestTranscriptionsNotConfigured(t *testing.T) {
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}})
	ct, body := upload(t, "a.wav", "audio/wav", wavHeader(), nil)
	w := postUpload(t, s, ct, body)
	if w.Code != 501 || errorMessage(t, w) != "speech to text is not configured" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	hinted, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Setup: Setup{Transcriber: "set stt up"}})
	ct, body = upload(t, "a.wav", "audio/wav", wavHeader(), nil)
	if w := postUpload(t, hinted, ct, body); errorMessage(t, w) != "speech to text is not configured: set stt up" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

func wavHeader() []byte { return append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 32)...) }

func TestSniffAudio(t *testing.T) {
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{[]byte("fLaC\x00\x00"), "flac"},
		{wavHeader(), "wav"},
		{[]byte("OggS\x00\x02"), "ogg"},
		{[]byte{0x1A, 0x45, 0xDF, 0xA3, 0x01}, "webm"},
		{[]byte("\x00\x00\x00\x20ftypM4A \x00"), "mp4"},
		{[]byte("ID3\x04\x00"), "mp3"},
		{[]byte{0xFF, 0xFB, 0x90, 0x00}, "mp3"},
		{[]byte{0xFF, 0xF1, 0x50, 0x80}, ""}, // AAC ADTS, not MP3
		{[]byte("just some text pretending"), ""},
		{[]byte("RIFF\x00\x00\x00\x00AVI "), ""},
		{nil, ""},
	} {
		if got := sniffAudio(tt.data); got != tt.want {
			t.Errorf("sniffAudio(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

func TestTranscriptions(t *testing.T) {
	tr := &fakeTranscriber{text: "hello world"}
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Transcriber: tr})

	ct, body := upload(t, "voice.txt", "text/plain", []byte("OggS\x00\x02rest of an ogg file"), map[string]string{"model": "whisper-1", "language": "en"})
	w := postUpload(t, s, ct, body)
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"text":"hello world"}` {
		t.Fatalf("json: %d %s", w.Code, w.Body)
	}
	if got := tr.got[0]; got.Format != "ogg" || got.Filename != "voice.txt" {
		t.Fatalf("audio passed as %q %q: the type must come from the bytes", got.Format, got.Filename)
	}

	ct, body = upload(t, "a.flac", "audio/flac", []byte("fLaC\x00\x00"), map[string]string{"response_format": "text"})
	if w := postUpload(t, s, ct, body); w.Code != 200 || w.Body.String() != "hello world" || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("text: %d %q", w.Code, w.Body)
	}

	calls := tr.calls
	for _, tt := range []struct {
		name   string
		ctype  string
		body   func() (string, *bytes.Buffer)
		status int
		says   string
	}{
		{"text named mp3", "", func() (string, *bytes.Buffer) {
			return upload(t, "voice.mp3", "audio/mpeg", []byte("definitely not audio"), nil)
		}, 400, "not audio"},
		{"no file", "", func() (string, *bytes.Buffer) { return upload(t, "", "", nil, map[string]string{"model": "x"}) }, 400, "no audio"},
		{"srt", "", func() (string, *bytes.Buffer) {
			return upload(t, "a.wav", "audio/wav", wavHeader(), map[string]string{"response_format": "srt"})
		}, 400, "json or text"},
		{"not multipart", "application/json", func() (string, *bytes.Buffer) { return "application/json", bytes.NewBufferString(`{}`) }, 400, "multipart"},
		{"over the cap", "", func() (string, *bytes.Buffer) {
			return upload(t, "big.wav", "audio/wav", append(wavHeader(), make([]byte, MaxAudioBytes)...), nil)
		}, 413, "25 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := tt.body()
			w := postUpload(t, s, ct, body)
			if w.Code != tt.status || !strings.Contains(errorMessage(t, w), tt.says) {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
		})
	}
	if tr.calls != calls {
		t.Fatal("the transcriber was called for a refused upload")
	}

	exact := append(wavHeader(), make([]byte, MaxAudioBytes-len(wavHeader()))...)
	ct, body = upload(t, "exact.wav", "audio/wav", exact, nil)
	if w := postUpload(t, s, ct, body); w.Code != 200 || len(tr.got[len(tr.got)-1].Data) != MaxAudioBytes {
		t.Fatalf("a file of exactly the cap: %d %s", w.Code, w.Body)
	}
}

func TestTranscriptionUpstreamFailure(t *testing.T) {
	tr := &fakeTranscriber{err: &Error{Message: "speech provider groq failed: HTTP 500", Err: errors.New("secret body")}}
	s, _ := newTestServer(t, &Options{Agent: &fakeAgent{}, Transcriber: tr})
	ct, body := upload(t, "a.wav", "audio/wav", wavHeader(), nil)
	w := postUpload(t, s, ct, body)
	if msg := errorMessage(t, w); w.Code != 502 || !strings.Contains(msg, "groq") || strings.Contains(msg, "secret") {
		t.Fatalf("status %d: %q", w.Code, msg)
	}
}
