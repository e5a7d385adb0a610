package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// recorder is a testing.TB that collects failures instead of failing, so
// the server's own failure reporting can be checked.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func client(t *testing.T, url string) *providers.Client {
	t.Helper()
	c, err := providers.NewClient(&providers.ClientOptions{Name: "fake", BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hi() *providers.Request {
	return &providers.Request{Model: "m", Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}}
}

func TestUnscriptedRequestFailsTest(t *testing.T) {
	rec := &recorder{}
	srv := providertest.NewServer(rec)
	_, err := client(t, srv.URL()).Chat(context.Background(), hi())

	var apiErr *providers.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusInternalServerError ||
		apiErr.Message != "providertest: unexpected request #1, no reply scripted" {
		t.Errorf("client saw %v, want a 500 naming the unexpected request", err)
	}
	rec.finish()
	if len(rec.errs) != 1 || rec.errs[0] != "providertest: unexpected request #1, no reply scripted" {
		t.Errorf("test failures = %q", rec.errs)
	}
}

func TestNoFailureAfterTestEnds(t *testing.T) {
	rec := &recorder{}
	srv := providertest.NewServer(rec)
	url := srv.URL()
	// A request arriving while the server shuts down must not reach Errorf,
	// which would panic on a real, finished test.
	srv.Close()
	rec.finish()
	_, _ = client(t, url).Chat(context.Background(), hi())
	if len(rec.errs) != 0 {
		t.Errorf("failures reported after the test ended: %q", rec.errs)
	}
}

func TestWrongPathFailsTest(t *testing.T) {
	rec := &recorder{}
	srv := providertest.NewServer(rec)
	defer rec.finish()
	resp, err := http.Get(srv.URL() + "/files")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d, want 404", resp.StatusCode)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "unexpected GET /v1/files") {
		t.Errorf("failures = %q", rec.errs)
	}
}

func TestScriptOrderAndRequests(t *testing.T) {
	srv := providertest.NewServer(t)
	pinned := providertest.Call("exec", `{"cmd":"ls"}`)
	pinned.ID = "mine"
	calls := []providers.ToolCall{providertest.Call("a", "{}"), pinned}
	reply := providertest.ToolCalls(calls...)
	srv.Enqueue(reply, providertest.ToolCalls(providertest.Call("b", "{}")), providertest.Text("end"))
	if srv.Pending() != 3 {
		t.Fatalf("Pending = %d", srv.Pending())
	}
	c := client(t, srv.URL())

	var ids []string
	for i := range 3 {
		var resp *providers.Response
		var err error
		if i%2 == 0 {
			resp, err = c.Chat(context.Background(), hi())
		} else {
			resp, err = c.ChatStream(context.Background(), hi(), nil)
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		for _, tc := range resp.Message.ToolCalls {
			ids = append(ids, tc.ID)
		}
	}
	if got := strings.Join(ids, ","); got != "call_1,mine,call_2" {
		t.Errorf("tool call ids = %s", got)
	}
	if calls[0].ID != "" {
		t.Errorf("the scripted reply was modified")
	}
	if srv.Pending() != 0 || len(srv.Requests()) != 3 || !srv.Requests()[1].Stream {
		t.Errorf("pending %d, requests %+v", srv.Pending(), srv.Requests())
	}
}

func TestStreamRendering(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{
		Content:   "héllo wörld",
		ToolCalls: []providers.ToolCall{providertest.Call("f", `{"a":"b"}`)},
		Usage:     providers.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3},
		Model:     "served-by",
	})
	body := rawStream(t, srv.URL(), `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`)
	for _, want := range []string{
		": providertest\n\n",
		`"delta":{"role":"assistant","content":""}`,
		`"delta":{"content":"hél"}`,
		`"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]`,
		`"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]`,
		`"finish_reason":"tool_calls"`,
		`"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}`,
		`"model":"served-by"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %s\n%s", want, body)
		}
	}
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("stream does not end with [DONE]")
	}

	// Without include_usage the usage event is left out.
	srv.Enqueue(providertest.Reply{Content: "x", Usage: providers.Usage{TotalTokens: 3}})
	if body := rawStream(t, srv.URL(), `{"model":"m","stream":true}`); strings.Contains(body, "usage") {
		t.Errorf("usage sent without include_usage:\n%s", body)
	}
}

func rawStream(t *testing.T, url, req string) string {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestDieAfterChunksNonStream(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Content: "x", DieAfterChunks: 1})
	_, err := client(t, srv.URL()).Chat(context.Background(), hi())
	if err == nil || !strings.HasPrefix(err.Error(), "fake: request failed") {
		t.Errorf("error = %v, want a dropped connection", err)
	}
}

func TestHandlerWithFallback(t *testing.T) {
	h := providertest.NewHandler()
	h.RecordRequests(false)
	h.SetFallback(func(r providertest.Request) providertest.Reply {
		return providertest.Text("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	h.Enqueue(providertest.Text("scripted first"))
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	c := client(t, srv.URL+"/api/v1")

	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() {
			resp, err := c.ChatStream(context.Background(), hi(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = resp.Message.Content
		})
	}
	wg.Wait()
	joined := strings.Join(results, "|")
	if strings.Count(joined, "scripted first") != 1 || strings.Count(joined, "echo: hi") != 7 {
		t.Errorf("results = %q", results)
	}
	if len(h.Requests()) != 0 {
		t.Errorf("recorded %d requests with recording off", len(h.Requests()))
	}
}

func TestRequestField(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"))
	req := hi()
	req.ExtraBody = map[string]any{"reasoning": map[string]any{"effort": "low"}}
	if _, err := client(t, srv.URL()).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got, ok := srv.Requests()[0].Field("reasoning")
	if !ok || string(got) != `{"effort":"low"}` {
		t.Errorf("Field(reasoning) = %s, %v", got, ok)
	}
}

func TestErrorHelper(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Error(http.StatusServiceUnavailable, "down for maintenance"))
	_, err := client(t, srv.URL()).Chat(context.Background(), hi())
	var apiErr *providers.APIError
	if !errors.As(err, &apiErr) || !apiErr.Temporary() || err.Error() != "fake: HTTP 503: down for maintenance" {
		t.Errorf("error = %v", err)
	}
}

// ExampleNewHandler serves scripted replies from a plain program, without a
// testing.TB: a fallback answers every request once the queue is empty.
func ExampleNewHandler() {
	h := providertest.NewHandler()
	h.RecordRequests(false) // keep memory flat in a long-running server
	h.SetFallback(func(r providertest.Request) providertest.Reply {
		return providertest.Text(fmt.Sprintf("you sent %d messages", len(r.Messages)))
	})
	srv := httptest.NewServer(h) // or http.ListenAndServe(addr, h)
	defer srv.Close()

	c, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL + "/v1"})
	resp, err := c.Chat(context.Background(), hi())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Content)
	// Output: you sent 1 messages
}

// TestListsModels: GET .../models answers the OpenAI model list, as the
// servers a client probes before use do, without touching the script.
func TestListsModels(t *testing.T) {
	srv := providertest.NewServer(t)
	resp, err := http.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"object":"list"`) || !strings.Contains(string(body), `"id":"scripted-model"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if len(srv.Requests()) != 0 {
		t.Fatalf("the model list was recorded as a request: %+v", srv.Requests())
	}
}
