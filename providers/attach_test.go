package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// legacyMessage is Message as it was before attachments existed. The
// text-only fast path must encode to exactly its bytes.
type legacyMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type legacyRequest struct {
	Model         string           `json:"model"`
	Messages      []legacyMessage  `json:"messages"`
	Tools         []ToolDefinition `json:"tools,omitempty"`
	Temperature   *float64         `json:"temperature,omitempty"`
	MaxTokens     int              `json:"max_tokens,omitempty"`
	Stream        bool             `json:"stream,omitempty"`
	StreamOptions *streamOptions   `json:"stream_options,omitempty"`
}

func encodeNoEscape(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestTextOnlyFastPathIsByteIdentical(t *testing.T) {
	req := conversation50()
	req.Messages = append(req.Messages, Message{Role: RoleUser, Content: "unicode ✓ and \u2028 and <html> & \"quotes\"", Name: "josh"})
	legacy := legacyRequest{Model: req.Model, Tools: req.Tools, MaxTokens: req.MaxTokens, Stream: true, StreamOptions: includeUsage}
	for _, m := range req.Messages {
		legacy.Messages = append(legacy.Messages, legacyMessage{m.Role, m.Content, m.Name, m.ToolCalls, m.ToolCallID})
	}
	want := encodeNoEscape(t, &legacy)
	got, err := marshalRequest(req, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("request bytes differ from the attachment-free encoding\n got %.300s\nwant %.300s", got, want)
	}
	// Message.MarshalJSON, reached by anyone encoding a Message, agrees.
	for i, m := range req.Messages {
		l := legacy.Messages[i]
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(l)
		if !bytes.Equal(a, b) {
			t.Fatalf("message %d: %s != %s", i, a, b)
		}
	}
}

var (
	pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	pdfBytes = []byte("%PDF-1.7\n%fake but signed\n")
)

func TestAttachmentPartsGolden(t *testing.T) {
	req := &Request{Model: "gpt-4o", Messages: []Message{
		{Role: RoleSystem, Content: "be brief"},
		{Role: RoleUser, Content: "what is in these?", Images: []Image{{Data: pngBytes}}, Documents: []Document{{Name: "report.pdf", Data: pdfBytes}}},
		{Role: RoleUser, Images: []Image{{Data: []byte("GIF89a....")}}, Documents: []Document{{Data: pdfBytes}}},
	}}
	got, err := marshalRequest(req, false)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "attachments.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("attachment encoding changed\n got %s\nwant %s", got, want)
	}
	// The parts decode back into the same message.
	var back struct{ Messages []Message }
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	m := back.Messages[1]
	if m.Content != "what is in these?" || !bytes.Equal(m.Images[0].Data, pngBytes) || m.Documents[0].Name != "report.pdf" || !bytes.Equal(m.Documents[0].Data, pdfBytes) {
		t.Errorf("round trip = %+v", m)
	}
	if back.Messages[2].Documents[0].Name != "document.pdf" {
		t.Errorf("unnamed document = %+v", back.Messages[2].Documents)
	}
}

func TestSniffImage(t *testing.T) {
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{pngBytes, "image/png"},
		{[]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'}, "image/jpeg"},
		{[]byte("GIF87a...."), "image/gif"},
		{[]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), "image/webp"},
		{[]byte("RIFF\x24\x00\x00\x00WAVEfmt "), ""},
		{[]byte("just some text, named photo.png"), ""},
		{pdfBytes, ""},
		{nil, ""},
	} {
		if got := SniffImage(tt.data); got != tt.want {
			t.Errorf("SniffImage(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

// TestAttachmentsRefusedBeforeAnyRequest sends every kind of bad
// attachment to a server that counts requests: none may arrive.
func TestAttachmentsRefusedBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c, err := NewClient(&ClientOptions{Name: "p", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	big := func(n int, head []byte) []byte { b := make([]byte, n); copy(b, head); return b }
	for _, tt := range []struct {
		name  string
		model string
		msg   Message
		want  string
	}{
		{"text named png", "gpt-4o", Message{Role: RoleUser, Images: []Image{{Data: []byte("hello, I am text")}}}, "not a PNG, JPEG, GIF or WebP"},
		{"text named pdf", "gpt-4o", Message{Role: RoleUser, Documents: []Document{{Name: "a.pdf", Data: []byte("hello")}}}, "not a PDF"},
		{"image over limit", "gpt-4o", Message{Role: RoleUser, Images: []Image{{Data: big(MaxImageBytes+1, pngBytes)}}}, "over the 5 MiB limit per image"},
		{"images over request limit", "gpt-4o", Message{Role: RoleUser, Images: []Image{
			{Data: big(MaxImageBytes, pngBytes)}, {Data: big(MaxImageBytes, pngBytes)}, {Data: big(MaxImageBytes, pngBytes)},
			{Data: big(MaxImageBytes, pngBytes)}, {Data: big(10, pngBytes)}}}, "over the 20 MiB limit per request"},
		{"pdf over limit", "gpt-4o", Message{Role: RoleUser, Documents: []Document{{Data: big(MaxDocumentBytes+1, pdfBytes)}}}, "over the 8 MiB limit per document"},
		{"pdfs over request limit", "gpt-4o", Message{Role: RoleUser, Documents: []Document{{Data: big(MaxDocumentBytes, pdfBytes)}, {Data: big(MaxDocumentBytes, pdfBytes)}, {Data: big(64, pdfBytes)}}}, "over the 16 MiB limit per request"},
		{"text model gets image", "llama-3.3-70b-versatile", Message{Role: RoleUser, Images: []Image{{Data: pngBytes}}}, "llama-3.3-70b-versatile"},
		{"vision model without pdf support", "llava:13b", Message{Role: RoleUser, Documents: []Document{{Data: pdfBytes}}}, "PDF documents"},
		{"unknown model fails closed", "my-finetune", Message{Role: RoleUser, Images: []Image{{Data: pngBytes}}}, "my-finetune"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := &Request{Model: tt.model, Messages: []Message{tt.msg}}
			_, err := c.Chat(context.Background(), req)
			if !errors.Is(err, ErrAttachment) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Chat: err = %v, want ErrAttachment mentioning %q", err, tt.want)
			}
			_, err = c.ChatStream(context.Background(), req, nil)
			if !errors.Is(err, ErrAttachment) {
				t.Errorf("ChatStream: err = %v", err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
}

func TestChainScreensEveryCandidate(t *testing.T) {
	var hits [2]atomic.Int32
	var srvs [2]*httptest.Server
	for i := range srvs {
		srvs[i] = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"I see a cat"},"finish_reason":"stop"}]}`))
		}))
		defer srvs[i].Close()
	}
	mk := func(name, model string, i int) Candidate {
		c, err := NewClient(&ClientOptions{Name: name, BaseURL: srvs[i].URL})
		if err != nil {
			t.Fatal(err)
		}
		return Candidate{Provider: name, Model: model, Client: c}
	}
	img := &Request{Messages: []Message{{Role: RoleUser, Content: "look", Images: []Image{{Data: pngBytes}}}}}

	// A text-only primary is passed over without a request; the vision
	// fallback answers and the notice says why.
	ch, _ := NewChain(&ChainOptions{Candidates: []Candidate{mk("groq", "llama-3.3-70b-versatile", 0), mk("openai", "gpt-4o", 1)}})
	for _, call := range []func() (*Response, error){
		func() (*Response, error) { return ch.Chat(context.Background(), img) },
		func() (*Response, error) { return ch.ChatStream(context.Background(), img, nil) },
	} {
		resp, err := call()
		if err != nil || resp.Message.Content != "I see a cat" || !strings.Contains(resp.FallbackNotice, "cannot read this message's attachments") {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	}
	if hits[0].Load() != 0 || hits[1].Load() != 2 {
		t.Fatalf("hits = %d, %d", hits[0].Load(), hits[1].Load())
	}

	// No candidate reads images: refused up front, naming models and key.
	ch, _ = NewChain(&ChainOptions{ModelKey: "models_config.agent.model", Candidates: []Candidate{mk("groq", "llama-3.3-70b-versatile", 0), mk("ollama", "qwen3:8b", 1)}})
	for _, call := range []func() (*Response, error){
		func() (*Response, error) { return ch.Chat(context.Background(), img) },
		func() (*Response, error) { return ch.ChatStream(context.Background(), img, nil) },
	} {
		_, err := call()
		if !errors.Is(err, ErrAttachment) {
			t.Fatalf("err = %v", err)
		}
		for _, want := range []string{"groq/llama-3.3-70b-versatile", "ollama/qwen3:8b", "models_config.agent.model"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
	}
	if hits[0].Load() != 0 || hits[1].Load() != 2 {
		t.Fatalf("a refused request was sent: hits = %d, %d", hits[0].Load(), hits[1].Load())
	}
}
