package agent_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// A tiny valid PNG header and a minimal PDF: the types are decided by
// these bytes, so that is all the tests need.
var (
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 3000)...)
	pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
)

// attachAgent is an agent whose provider is a one-candidate chain for
// model, so screening errors carry the config key the gateway uses. It
// has the filesystem tools of a workspace holding a.txt.
func attachAgent(t *testing.T, model string, logs *syncBuffer) (*agent.Agent, *providertest.Server, *memory.Store) {
	t.Helper()
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "custom", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := providers.NewChain(&providers.ChainOptions{
		Candidates: []providers.Candidate{{Provider: "custom", Model: model, Client: client}},
		ModelKey:   "agents.defaults.model",
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("the caption says pumpkin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	opts := &agent.Options{Tools: reg, Workspace: ws,
		Requests: agent.RequestOptions{ProviderName: "custom"},
		Memory:   agent.MemoryOptions{DisableLearning: true},
		Hooks:    agent.HookOptions{Incidents: &incidents{}}}
	if logs != nil {
		opts.Logger = logTo(logs)
	}
	a, err := agent.New(chain, model, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	t.Cleanup(func() {
		rec := opts.Hooks.Incidents.(*incidents)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.got) > 0 {
			t.Errorf("incidents were recorded: %+v", rec.got)
		}
	})
	return a, srv, store
}

// incidents records what the agent reports; turns in these tests must
// report none.
type incidents struct {
	mu  sync.Mutex
	got []agent.Incident
}

func (r *incidents) Record(inc agent.Incident) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, inc)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func lastUser(msgs []providers.Message) *providers.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == providers.RoleUser {
			return &msgs[i]
		}
	}
	return nil
}

func TestAttachmentsRideOneTurnAndSessionKeepsReferences(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "chat"
		if streaming {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			a, srv, store := attachAgent(t, "openai/gpt-4o", nil)
			srv.Enqueue(
				providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`)),
				providertest.Text("A cat, and a one-page report."),
				providertest.Text("You sent them a moment ago."),
			)
			ctx := context.Background()
			if streaming {
				ctx = agent.WithSink(ctx, func(agent.StreamEvent) {})
			}
			req := agent.Request{
				SessionKey: "telegram:42", Text: "what are these?", Channel: "telegram", ChatID: "42",
				Images:    []providers.Image{{Data: pngBytes}},
				Documents: []providers.Document{{Name: "report.pdf", Data: pdfBytes}},
			}
			if _, err := a.Process(ctx, req); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:42", Text: "when did I send them?"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("provider got %d requests, want 3", len(reqs))
			}
			imgURL := `"image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBytes) + `"}`
			filePart := `"file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,` + base64.StdEncoding.EncodeToString(pdfBytes) + `"}`
			// Both requests of the first turn carry the bytes: the model
			// still needs to see them after its tool call.
			for i, r := range reqs[:2] {
				raw := string(r.Raw)
				if !strings.Contains(raw, `"type":"image_url"`) || !strings.Contains(raw, imgURL) {
					t.Errorf("request %d has no image_url data URL part:\n%.400s", i+1, raw)
				}
				if !strings.Contains(raw, `"type":"file"`) || !strings.Contains(raw, filePart) {
					t.Errorf("request %d has no PDF file part", i+1)
				}
				u := lastUser(r.Messages)
				if u == nil || u.Content != "what are these?" || len(u.Images) != 1 || len(u.Documents) != 1 {
					t.Fatalf("request %d user message = %+v", i+1, u)
				}
				if !bytes.Equal(u.Images[0].Data, pngBytes) || !bytes.Equal(u.Documents[0].Data, pdfBytes) {
					t.Errorf("request %d: attachment bytes changed on the way", i+1)
				}
			}
			// The next turn sends neither again; the model reads a note.
			raw := string(reqs[2].Raw)
			if strings.Contains(raw, "image_url") || strings.Contains(raw, `"type":"file"`) || strings.Contains(raw, base64.StdEncoding.EncodeToString(pdfBytes)) {
				t.Fatalf("a later turn re-sent the attachments:\n%.600s", raw)
			}
			var first *providers.Message
			for i := range reqs[2].Messages {
				if strings.HasPrefix(reqs[2].Messages[i].Content, "what are these?") {
					first = &reqs[2].Messages[i]
				}
			}
			if first == nil {
				t.Fatalf("the first question is missing from the history: %+v", reqs[2].Messages)
			}
			for _, want := range []string{"[image: png, 2 KiB, sha256 " + sha(pngBytes)[:12], fmt.Sprintf(`[pdf: "report.pdf", %d B, sha256 %s`, len(pdfBytes), sha(pdfBytes)[:12]), "not included again]"} {
				if !strings.Contains(first.Content, want) {
					t.Errorf("history note lacks %q:\n%s", want, first.Content)
				}
			}

			sess, err := store.Load("telegram:42")
			if err != nil {
				t.Fatal(err)
			}
			u := sess.Messages[0]
			want := []memory.AttachmentRef{
				{Kind: memory.AttachmentImage, Type: "image/png", Size: int64(len(pngBytes)), SHA256: sha(pngBytes)},
				{Kind: memory.AttachmentPDF, Type: "application/pdf", Size: int64(len(pdfBytes)), SHA256: sha(pdfBytes), Label: "report.pdf"},
			}
			if u.Content != "what are these?" || len(u.Attachments) != 2 || u.Attachments[0] != want[0] || u.Attachments[1] != want[1] {
				t.Fatalf("stored user message = %+v, want refs %+v", u, want)
			}
			path, _ := store.Path("telegram:42")
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range [][]byte{pngBytes[:16], []byte(base64.StdEncoding.EncodeToString(pngBytes)[:40]), []byte("%PDF-"), []byte(base64.StdEncoding.EncodeToString(pdfBytes)[:40])} {
				if bytes.Contains(file, b) {
					t.Fatalf("the session file holds attachment bytes %q", b)
				}
			}
		})
	}
}

func TestModelThatCannotReadAttachmentsIsAnsweredClearly(t *testing.T) {
	for _, tt := range []struct {
		name, model string
		req         agent.Request
		what        string
	}{
		{name: "image to a text model", model: "llama3.1:8b", what: "images",
			req: agent.Request{Text: "look", Images: []providers.Image{{Data: pngBytes}}}},
		{name: "pdf to a model that only sees images", model: "llava:13b", what: "PDF documents",
			req: agent.Request{Text: "read", Documents: []providers.Document{{Name: "r.pdf", Data: pdfBytes}}}},
	} {
		for _, streaming := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/chat", true: "/stream"}[streaming], func(t *testing.T) {
				var logs syncBuffer
				a, srv, store := attachAgent(t, tt.model, &logs)
				ctx := context.Background()
				if streaming {
					ctx = agent.WithSink(ctx, func(agent.StreamEvent) {})
				}
				req := tt.req
				req.SessionKey = "telegram:5"
				reply, err := a.Process(ctx, req)
				if !errors.Is(err, providers.ErrAttachment) {
					t.Fatalf("err = %v, want one wrapping providers.ErrAttachment", err)
				}
				for _, want := range []string{tt.what, "custom/" + tt.model, "set agents.defaults.model"} {
					if reply == nil || !strings.Contains(reply.Text, want) {
						t.Fatalf("reply %+v does not name %q", reply, want)
					}
				}
				if strings.Contains(reply.Text, "…") || strings.HasPrefix(reply.Text, "Error:") {
					t.Errorf("the reply is a cut-off error line: %q", reply.Text)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Fatalf("%d requests reached the provider", n)
				}
				if strings.Contains(logs.String(), "retrying without streaming") {
					t.Errorf("a refused attachment was retried:\n%s", logs.String())
				}
				// The conversation goes on: the next plain message is sent
				// with a note, never the bytes the model could not read.
				srv.Enqueue(providertest.Text("Sorry, I could not see it."))
				if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:5", Text: "ok, never mind"}); err != nil {
					t.Fatalf("the next turn failed: %v", err)
				}
				raw := string(srv.Requests()[0].Raw)
				if strings.Contains(raw, "image_url") || strings.Contains(raw, `"type":"file"`) || !strings.Contains(raw, "sent in an earlier turn") {
					t.Fatalf("next request:\n%.600s", raw)
				}
				sess, err := store.Load("telegram:5")
				if err != nil {
					t.Fatal(err)
				}
				if len(sess.Messages) < 1 || len(sess.Messages[0].Attachments) != 1 {
					t.Fatalf("the refused message was not kept with its reference: %+v", sess.Messages)
				}
			})
		}
	}
}

func TestSessionModelThatCannotSeeImagesNamesSlashModel(t *testing.T) {
	a, srv, _ := attachAgent(t, "openai/gpt-4o", nil)
	ctx := context.Background()
	if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:8", Text: "/model llama3.1:8b"}); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Process(ctx, agent.Request{SessionKey: "telegram:8", Text: "look", Images: []providers.Image{{Data: pngBytes}}})
	if !errors.Is(err, providers.ErrAttachment) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"llama3.1:8b", "/model <name>", "images"} {
		if !strings.Contains(reply.Text, want) {
			t.Errorf("reply %q does not mention %q", reply.Text, want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
}

func TestLyingOrOversizedAttachmentRefusedBeforeAnyRequest(t *testing.T) {
	big := func(n int) []byte { return append(append([]byte{}, pngBytes[:16]...), make([]byte, n-16)...) }
	bigPDF := append([]byte("%PDF-1.7\n"), make([]byte, providers.MaxDocumentBytes)...)
	pdfs := make([]providers.Document, 3)
	for i := range pdfs {
		pdfs[i] = providers.Document{Name: "part.pdf", Data: append([]byte("%PDF-1.7\n"), make([]byte, 6<<20)...)}
	}
	for _, tt := range []struct {
		name string
		req  agent.Request
		want string
	}{
		{"text named as a photo", agent.Request{Images: []providers.Image{{Data: []byte("just some text, honestly")}}}, "not a PNG, JPEG, GIF or WebP image by its content"},
		{"html named as a pdf", agent.Request{Documents: []providers.Document{{Name: "invoice.pdf", Data: []byte("<html>pay me</html>")}}}, `"invoice.pdf" is not a PDF by its content`},
		{"empty image", agent.Request{Images: []providers.Image{{Data: pngBytes}, {}}}, "image 2 of 2 is not a PNG"},
		{"image over the limit", agent.Request{Images: []providers.Image{{Data: big(providers.MaxImageBytes + 1)}}}, "over the 5.0 MiB limit per image"},
		{"images over the request limit", agent.Request{Images: []providers.Image{{Data: big(4 << 20)}, {Data: big(4 << 20)}, {Data: big(4 << 20)}, {Data: big(4 << 20)}, {Data: big(4 << 20)}, {Data: big(4 << 20)}}}, "the images total 24.0 MiB, over the 20.0 MiB limit"},
		{"pdf over the limit", agent.Request{Documents: []providers.Document{{Name: "big.pdf", Data: bigPDF}}}, `"big.pdf" is 8.0 MiB, over the 8.0 MiB limit per document`},
		{"pdfs over the request limit", agent.Request{Documents: pdfs}, "the documents total 18.0 MiB, over the 16.0 MiB limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, srv, store := attachAgent(t, "openai/gpt-4o", nil)
			req := tt.req
			req.SessionKey, req.Text = "telegram:9", "have a look"
			reply, err := a.Process(context.Background(), req)
			if !errors.Is(err, providers.ErrAttachment) {
				t.Fatalf("err = %v, want one wrapping providers.ErrAttachment", err)
			}
			if reply == nil || !strings.Contains(reply.Text, tt.want) || !strings.Contains(reply.Text, "Nothing was sent to the model") {
				t.Fatalf("reply = %+v, want it to say %q", reply, tt.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests reached the provider", n)
			}
			sess, err := store.Load("telegram:9")
			if err != nil {
				t.Fatal(err)
			}
			if len(sess.Messages) != 0 {
				t.Fatalf("a refused message was stored: %+v", sess.Messages)
			}
		})
	}
}
