package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func newClient(t *testing.T, baseURL string, mod ...func(*providers.ClientOptions)) *providers.Client {
	t.Helper()
	opts := &providers.ClientOptions{Name: "fake", BaseURL: baseURL, Timeout: 10 * time.Second}
	for _, f := range mod {
		f(opts)
	}
	c, err := providers.NewClient(opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func userRequest(text string) *providers.Request {
	return &providers.Request{
		Model:    "test-model",
		Messages: []providers.Message{{Role: providers.RoleUser, Content: text}},
	}
}

func TestNewClientValidation(t *testing.T) {
	tests := []struct {
		name    string
		opts    *providers.ClientOptions
		wantErr string
	}{
		{"nil options", nil, "non-nil ClientOptions"},
		{"empty base URL", &providers.ClientOptions{Name: "groq"}, "groq: ClientOptions.BaseURL: empty"},
		{"bad scheme", &providers.ClientOptions{BaseURL: "ftp://example.com/v1"}, "provider: ClientOptions.BaseURL: \"ftp://example.com/v1\" must start with http:// or https://"},
		{"no host", &providers.ClientOptions{BaseURL: "http:///v1"}, "has no host"},
		{"unparseable", &providers.ClientOptions{BaseURL: "http://[::1"}, "cannot parse"},
		{"negative timeout", &providers.ClientOptions{BaseURL: "http://localhost", Timeout: -time.Second}, "Timeout is negative"},
		{"ok", &providers.ClientOptions{BaseURL: "http://localhost:11434/v1/"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := providers.NewClient(tt.opts)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				if c.Name() != "provider" {
					t.Errorf("Name() = %q, want the default %q", c.Name(), "provider")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("NewClient error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestEndpointPath(t *testing.T) {
	tests := []struct{ base, wantPath, wantQuery string }{
		{"/v1", "/v1/chat/completions", ""},
		{"/v1/", "/v1/chat/completions", ""},
		{"/openai/deployments/x?api-version=2024-06-01", "/openai/deployments/x/chat/completions", "api-version=2024-06-01"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			var gotPath, gotQuery string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotQuery = r.URL.Path, r.URL.RawQuery
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"ok"}}]}`))
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+tt.base)
			if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if gotPath != tt.wantPath || gotQuery != tt.wantQuery {
				t.Errorf("request went to %q?%q, want %q?%q", gotPath, gotQuery, tt.wantPath, tt.wantQuery)
			}
		})
	}
}

func TestChat(t *testing.T) {
	usage := providers.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}
	tests := []struct {
		name       string
		reply      providertest.Reply
		wantText   string
		wantCalls  []providers.ToolCall
		wantFinish string
		wantUsage  providers.Usage
	}{
		{
			name:       "text",
			reply:      providertest.Reply{Content: "hello there", Usage: usage},
			wantText:   "hello there",
			wantFinish: "stop",
			wantUsage:  usage,
		},
		{
			name:  "tool calls",
			reply: providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`), providertest.Call("ls", `{}`)),
			wantCalls: []providers.ToolCall{
				{ID: "call_1", Type: "function", Function: providers.FunctionCall{Name: "read_file", Arguments: `{"path":"a.txt"}`}},
				{ID: "call_2", Type: "function", Function: providers.FunctionCall{Name: "ls", Arguments: `{}`}},
			},
			wantFinish: "tool_calls",
		},
		{
			name:       "length",
			reply:      providertest.Reply{Content: "cut", FinishReason: "length"},
			wantText:   "cut",
			wantFinish: "length",
		},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := tt.name + map[bool]string{false: "/chat", true: "/stream"}[stream]
			t.Run(name, func(t *testing.T) {
				srv := providertest.NewServer(t)
				srv.Enqueue(tt.reply)
				c := newClient(t, srv.URL())
				var resp *providers.Response
				var err error
				var deltas []string
				if stream {
					resp, err = c.ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
						deltas = append(deltas, d.Content)
					})
				} else {
					resp, err = c.Chat(context.Background(), userRequest("hi"))
				}
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				if resp.Message.Role != providers.RoleAssistant || resp.Message.Content != tt.wantText {
					t.Errorf("message = %+v, want assistant %q", resp.Message, tt.wantText)
				}
				if stream && strings.Join(deltas, "") != tt.wantText {
					t.Errorf("deltas %q do not add up to %q", deltas, tt.wantText)
				}
				if stream && len(tt.wantText) > 4 && len(deltas) < 2 {
					t.Errorf("got %d deltas, want the text delivered in pieces", len(deltas))
				}
				if !equalCalls(resp.Message.ToolCalls, tt.wantCalls) {
					t.Errorf("tool calls = %+v, want %+v", resp.Message.ToolCalls, tt.wantCalls)
				}
				if resp.FinishReason != tt.wantFinish {
					t.Errorf("finish reason = %q, want %q", resp.FinishReason, tt.wantFinish)
				}
				if resp.Usage != tt.wantUsage {
					t.Errorf("usage = %+v, want %+v", resp.Usage, tt.wantUsage)
				}
				if resp.Model != "test-model" {
					t.Errorf("model = %q, want the echoed %q", resp.Model, "test-model")
				}
				reqs := srv.Requests()
				if len(reqs) != 1 || reqs[0].Stream != stream || reqs[0].IncludeUsage != stream || reqs[0].Messages[0].Content != "hi" {
					t.Errorf("server saw %+v", reqs)
				}
			})
		}
	}
}

func equalCalls(a, b []providers.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestChatArgumentsAsObject(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Body: `{"choices":[{"message":{"role":"assistant","content":null,
		"tool_calls":[{"id":"x","function":{"name":"f","arguments":{"a":1}}}]},"finish_reason":"tool_calls"}]}`})
	resp, err := newClient(t, srv.URL()).Chat(context.Background(), userRequest("hi"))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := providers.ToolCall{ID: "x", Type: "function", Function: providers.FunctionCall{Name: "f", Arguments: `{"a":1}`}}
	if len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0] != want {
		t.Errorf("tool calls = %+v, want %+v", resp.Message.ToolCalls, want)
	}
}

func TestChatBodyErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"no choices", `{"choices":[]}`, "fake: response has no choices"},
		{"not json", `hello`, "fake: decode response"},
		{"error in 200 body", `{"error":{"message":"upstream died","code":502}}`, "fake: HTTP 502: upstream died"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Enqueue(providertest.Reply{Body: tt.body, Header: http.Header{"Content-Type": {"application/json"}}})
			_, err := newClient(t, srv.URL()).Chat(context.Background(), userRequest("hi"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestAuthorizationHeader(t *testing.T) {
	t.Run("key sent as bearer", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.RequireKey("sekrit")
		srv.Enqueue(providertest.Text("ok"))
		c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.APIKey = "sekrit" })
		if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
			t.Fatalf("Chat: %v", err)
		}
		if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sekrit" {
			t.Errorf("Authorization = %q", got)
		}
	})
	t.Run("no key no header", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Text("ok"))
		if _, err := newClient(t, srv.URL()).Chat(context.Background(), userRequest("hi")); err != nil {
			t.Fatalf("Chat: %v", err)
		}
		if h := srv.Requests()[0].Header; h.Get("Authorization") != "" {
			t.Errorf("keyless client sent Authorization %q", h.Get("Authorization"))
		}
	})
	t.Run("wrong key is 401", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.RequireKey("right")
		srv.Enqueue(providertest.Text("never served"))
		c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.APIKey = "wrong" })
		_, err := c.Chat(context.Background(), userRequest("hi"))
		var apiErr *providers.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Code != "invalid_api_key" {
			t.Fatalf("error = %#v, want a 401 APIError", err)
		}
		if srv.Pending() != 1 {
			t.Errorf("rejected request consumed a scripted reply")
		}
	})
	t.Run("extra headers win", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Text("ok"))
		c := newClient(t, srv.URL(), func(o *providers.ClientOptions) {
			o.APIKey = "k"
			o.Headers = map[string]string{"x-api-key": "k2", "Authorization": "Custom k"}
		})
		if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
			t.Fatalf("Chat: %v", err)
		}
		h := srv.Requests()[0].Header
		if h.Get("X-Api-Key") != "k2" || h.Get("Authorization") != "Custom k" {
			t.Errorf("headers = %v", h)
		}
	})
}

func TestRequestGolden(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"))
	req := &providers.Request{
		Model: "m",
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: "Be brief & use <code>."},
			{Role: providers.RoleUser, Content: "hi \"there\""},
		},
	}
	if _, err := newClient(t, srv.URL()).Chat(context.Background(), req); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	const want = `{"model":"m","messages":[{"role":"system","content":"Be brief & use <code>."},{"role":"user","content":"hi \"there\""}]}`
	if got := string(srv.Requests()[0].Raw); got != want {
		t.Errorf("request body\n got %s\nwant %s", got, want)
	}
}

func TestRequestFields(t *testing.T) {
	temp := 0.2
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"), providertest.Text("ok"))
	c := newClient(t, srv.URL())
	req := &providers.Request{
		Model: "m",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Content: "hi"},
			{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "c1", Function: providers.FunctionCall{Name: "f", Arguments: "{}"}}}},
			{Role: providers.RoleTool, ToolCallID: "c1", Content: "result"},
		},
		Tools:       []providers.ToolDefinition{{Function: providers.FunctionDefinition{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}},
		Temperature: &temp,
		MaxTokens:   64,
		ExtraBody: map[string]any{
			"model":                "overridden",
			"max_tokens":           1,
			"stream":               true,
			"chat_template_kwargs": map[string]any{"enable_thinking": false},
			"top_p":                0.9,
		},
	}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if _, err := c.ChatStream(context.Background(), req, nil); err != nil {
		t.Fatalf("ChatStream: %v", err)
	}
	if req.Messages[1].ToolCalls[0].Type != "" || req.Tools[0].Type != "" {
		t.Errorf("the caller's request was modified")
	}
	for i, r := range srv.Requests() {
		var body map[string]any
		if err := json.Unmarshal(r.Raw, &body); err != nil {
			t.Fatalf("request %d is not JSON: %v\n%s", i, err, r.Raw)
		}
		checks := map[string]any{
			"model":                "m",
			"max_tokens":           float64(64),
			"temperature":          0.2,
			"top_p":                0.9,
			"chat_template_kwargs": map[string]any{"enable_thinking": false},
			"stream":               map[int]any{0: nil, 1: true}[i],
		}
		for k, want := range checks {
			if got := body[k]; !jsonEqual(got, want) {
				t.Errorf("request %d: %s = %v, want %v", i, k, got, want)
			}
		}
		if r.Messages[1].ToolCalls[0].Type != "function" || r.Tools[0].Type != "function" {
			t.Errorf("request %d: empty types not sent as \"function\": %s", i, r.Raw)
		}
		if _, ok := body["tools"]; !ok {
			t.Errorf("request %d: tools missing", i)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestExtraBodyFillsUnsetFields(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("ok"))
	req := userRequest("hi")
	req.ExtraBody = map[string]any{"temperature": 0.7}
	if _, err := newClient(t, srv.URL()).Chat(context.Background(), req); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	r := srv.Requests()[0]
	if r.Temperature == nil || *r.Temperature != 0.7 {
		t.Errorf("temperature from ExtraBody not sent: %s", r.Raw)
	}
	if _, ok := r.Field("tools"); ok {
		t.Errorf("empty tools sent: %s", r.Raw)
	}
}
