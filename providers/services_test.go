package providers_test

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestSniffAudio(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		ext  string
	}{
		{"flac", []byte("fLaC\x00\x00\x00\x22"), "flac"},
		{"mp3 id3", []byte("ID3\x04\x00\x00\x00"), "mp3"},
		{"mp3 frame", []byte{0xFF, 0xFB, 0x90, 0x64}, "mp3"},
		{"adts aac is not mp3", []byte{0xFF, 0xF1, 0x50, 0x80}, ""},
		{"m4a", []byte("\x00\x00\x00\x20ftypM4A \x00\x00"), "m4a"},
		{"ogg", []byte("OggS\x00\x02"), "ogg"},
		{"wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), "wav"},
		{"webm", []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm"), "webm"},
		{"matroska video is not webm", []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska"), ""},
		{"text named voice.mp3", []byte("this is not audio"), ""},
		{"empty", nil, ""},
	} {
		_, ext, ok := providers.SniffAudio(tt.data)
		if ext != tt.ext || ok != (tt.ext != "") {
			t.Errorf("%s: SniffAudio = %q, %v", tt.name, ext, ok)
		}
	}
}

func TestTranscribe(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.RequireKey("gsk")
	srv.Enqueue(providertest.Reply{Body: `{"text":"  hello there \n"}`})
	c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.APIKey = "gsk" })
	ogg := []byte("OggS\x00\x02 fake opus payload")
	text, err := c.Transcribe(context.Background(), &providers.TranscriptionRequest{Model: "whisper-large-v3", Audio: ogg, Language: "en"})
	if err != nil || text != "hello there" {
		t.Fatalf("text %q, err %v", text, err)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/audio/transcriptions" {
		t.Errorf("path = %s", req.Path)
	}
	_, params, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(strings.NewReader(string(req.Raw)), params["boundary"])
	got := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		if p.FormName() == "file" {
			got["filename"] = p.FileName()
			got["type"] = p.Header.Get("Content-Type")
		}
		got[p.FormName()] = string(b)
	}
	want := map[string]string{"file": string(ogg), "filename": "audio.ogg", "type": "audio/ogg", "model": "whisper-large-v3", "response_format": "json", "language": "en"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("multipart form (-want +got):\n%s", diff)
	}

	// Refusals happen before any request.
	for _, audio := range [][]byte{[]byte("text named voice.mp3"), append([]byte("OggS"), make([]byte, providers.MaxAudioBytes)...)} {
		if _, err := c.Transcribe(context.Background(), &providers.TranscriptionRequest{Model: "m", Audio: audio}); !errors.Is(err, providers.ErrAttachment) {
			t.Errorf("err = %v", err)
		}
	}
	srv.Enqueue(providertest.Error(http.StatusBadRequest, "file too short"))
	if _, err := c.Transcribe(context.Background(), &providers.TranscriptionRequest{Model: "m", Audio: ogg}); err == nil || !strings.Contains(err.Error(), "file too short") {
		t.Errorf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestEmbed(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want [][]float32
		err  string
	}{
		{"reordered by index", `{"data":[{"index":1,"embedding":[0.5,1]},{"index":0,"embedding":[2,3]}],"model":"e","usage":{"prompt_tokens":4,"total_tokens":4}}`,
			[][]float32{{2, 3}, {0.5, 1}}, ""},
		{"base64", `{"data":[{"index":0,"embedding":"AACAPwAAAEA="},{"index":1,"embedding":"AABAQA=="}]}`, [][]float32{{1, 2}, {3}}, ""},
		{"duplicate index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`, nil, "index 0 appears twice"},
		{"missing index", `{"data":[{"index":0,"embedding":[1]}]}`, nil, "no vector for input 1"},
		{"out of range", `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[2]}]}`, nil, "index 2 is out of range"},
		{"no index field", `{"data":[{"embedding":[1]},{"embedding":[2]}]}`, nil, "has no index"},
		{"truncated body", `{"data":[{"index":0,"embed`, nil, "decode embeddings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Enqueue(providertest.Reply{Body: tt.body, Header: http.Header{"Content-Type": {"application/json"}}})
			c := newClient(t, srv.URL())
			resp, err := c.Embed(context.Background(), &providers.EmbeddingRequest{Model: "e", Input: []string{"a", "b"}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, resp.Vectors); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			if got := string(srv.Requests()[0].Raw); got != `{"model":"e","input":["a","b"],"encoding_format":"float"}` {
				t.Errorf("request = %s", got)
			}
		})
	}
	if providers.DefaultEmbeddingModel("ollama") != "nomic-embed-text" || providers.DefaultEmbeddingModel("openai") != "text-embedding-3-small" || providers.DefaultEmbeddingModel("groq") != "" {
		t.Error("default embedding models")
	}
}

func TestEmbedIndexErrorIsSentinel(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Body: `{"data":[{"index":5,"embedding":[1]}]}`})
	_, err := newClient(t, srv.URL()).Embed(context.Background(), &providers.EmbeddingRequest{Model: "e", Input: []string{"x"}})
	if !errors.Is(err, providers.ErrEmbeddingIndex) {
		t.Fatalf("err = %v", err)
	}
}

func TestAzureURLAndHeader(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"), providertest.Text("ok"), providertest.Reply{Body: `{"data":[{"index":0,"embedding":[1]}]}`})
	spec, _ := providers.Lookup("azure")
	c := newClient(t, srv.URL(), func(o *providers.ClientOptions) {
		o.APIKey, o.AuthHeader, o.Style = "az-key", spec.AuthHeader, spec.Style
	})
	req := userRequest("hi")
	req.Model = "my-deployment"
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ChatStream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), &providers.EmbeddingRequest{Model: "embed-deploy", Input: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, want := range []string{
		"/v1/openai/deployments/my-deployment/chat/completions?api-version=" + providers.DefaultAzureAPIVersion,
		"/v1/openai/deployments/my-deployment/chat/completions?api-version=" + providers.DefaultAzureAPIVersion,
		"/v1/openai/deployments/embed-deploy/embeddings?api-version=" + providers.DefaultAzureAPIVersion,
	} {
		if reqs[i].Path != want {
			t.Errorf("request %d path = %s, want %s", i, reqs[i].Path, want)
		}
		if reqs[i].Header.Get("Api-Key") != "az-key" || reqs[i].Header.Get("Authorization") != "" {
			t.Errorf("request %d auth headers = %v", i, reqs[i].Header)
		}
	}

	// A base that already names a deployment and a version is kept.
	srv.Enqueue(providertest.Text("ok"))
	c = newClient(t, srv.URL()+"/openai/deployments/fixed?api-version=2025-01-01", func(o *providers.ClientOptions) { o.Style = providers.StyleAzure })
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[3].Path; got != "/v1/openai/deployments/fixed/chat/completions?api-version=2025-01-01" {
		t.Errorf("path = %s", got)
	}
}

func TestClientExtraBody(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"))
	c := newClient(t, srv.URL(), func(o *providers.ClientOptions) {
		o.ExtraBody = map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}, "top_k": 3}
	})
	req := userRequest("hi")
	req.ExtraBody = map[string]any{"top_k": 9}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if v, _ := r.Field("chat_template_kwargs"); string(v) != `{"enable_thinking":false}` {
		t.Errorf("chat_template_kwargs = %s", v)
	}
	if v, _ := r.Field("top_k"); string(v) != "9" {
		t.Errorf("the request's own extra body must win: top_k = %s", v)
	}
	if len(req.ExtraBody) != 1 {
		t.Error("the caller's request was modified")
	}
}
