package providers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// completionCorpus is whole answers as providers send them, and as they go
// wrong: each must decode by hand exactly as encoding/json decodes it, or
// be left to encoding/json.
var completionCorpus = []string{
	// providertest and the bench's fake.
	`{"id":"chatcmpl-1","object":"chat.completion","created":1796324672,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I help?"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4200,"completion_tokens":6,"total_tokens":4206}}`,
	`{"id":"chatcmpl-2","object":"chat.completion","created":1796324672,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_dir","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
	// OpenAI, with the fields it adds.
	`{"id":"chatcmpl-9x","object":"chat.completion","created":1727000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_1"}`,
	`{"id":"c","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},{"id":"call_b","type":"function","function":{"name":"shell","arguments":"{\"command\":\"ls -la\"}"}}]},"finish_reason":"tool_calls"}]}`,
	// Servers that send arguments as an object, an index, odd values.
	`{"choices":[{"message":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":{"a":[1,2,{"b":null}], "c" : "d"}}}]}}]}`,
	`{"choices":[{"message":{"tool_calls":[{"index":null,"id":"c1","type":null,"function":{"name":"f","arguments":null}}]}}]}`,
	`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments": "x" }}]}}]}`,
	`{"choices":[{"message":{"tool_calls":[]}}]}`,
	`{"choices":[{"message":{"tool_calls":null}}]}`,
	`{"choices":[{"message":{"tool_calls":[{"function":null}]}}]}`,
	`{"choices":[{"message":null,"finish_reason":null}]}`,
	`{"choices":[null]}`,
	`{"choices":[],"usage":null}`,
	`{"choices":null}`,
	`{}`,
	`{"usage":{"prompt_tokens":null,"total_tokens":7}}`,
	// Escapes, Unicode and damage inside the text.
	`{"choices":[{"message":{"content":"line\nbreak \"quoted\" \\ back\/slash \t tab"}}]}`,
	`{"choices":[{"message":{"content":"caf\u00e9 \ud83d\ude00 emoji"}}]}`,
	`{"choices":[{"message":{"content":"lone \ud800 surrogate"}}]}`,
	`{"choices":[{"message":{"content":"ünïcödé 日本語 😀"}}]}`,
	"{\"choices\":[{\"message\":{\"content\":\"bad \xff\xfe utf8\"}}]}",
	"{\"choices\":[{\"message\":{\"content\":\"raw\x01control\"}}]}",
	`{"choices":[{"message":{"content":"bad \x escape"}}]}`,
	// Shapes left to encoding/json.
	`{"error":{"message":"overloaded","type":"server_error","code":"529"}}`,
	`{"error":"plain text error","choices":[]}`,
	`{"Model":"m","Choices":[{"Message":{"Content":"folded keys"}}]}`,
	`{"model":"a","model":"b","choices":[]}`,
	`{"choices":[{"message":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"message":{"tool_calls":[{"index":1.0,"function":{"name":"f"}}]}}]}`,
	`{"choices":[{"message":{"tool_calls":[{"index":"0"}]}}]}`,
	`{"usage":{"prompt_tokens":1e3}}`,
	`{"usage":{"prompt_tokens":99999999999999999999}}`,
	`{"model":42,"choices":[]}`,
	`{"mod\u0065l":"escaped key","choices":[]}`,
	// Broken JSON.
	`{"choices":[{"message":{"content":"Hel`,
	`{"choices":[]} trailing`,
	`{"choices":[],}`,
	`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":{"a":}}}]}}]}`,
	`[{"choices":[]}]`,
	`null`,
	``,
	" \t{ \"model\" : \"m\" , \"choices\" : [ { \"message\" : { \"content\" : \"spaced\" } } ] }\r\n",
}

// decodeCompletionBoth decodes body by hand (when fastCompletion takes it)
// and with encoding/json.
func decodeCompletionBoth(body []byte) (fast, ref wireResponse, handled bool, refErr error) {
	handled = fastCompletion(body, &fast)
	refErr = json.Unmarshal(body, &ref)
	return fast, ref, handled, refErr
}

func TestFastCompletionMatchesEncodingJSON(t *testing.T) {
	handledAny := 0
	for _, body := range completionCorpus {
		fast, ref, handled, refErr := decodeCompletionBoth([]byte(body))
		if !handled {
			continue
		}
		handledAny++
		if refErr != nil {
			t.Errorf("%s\nhandled by hand, but encoding/json fails: %v", body, refErr)
			continue
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Errorf("%s\nby hand:       %+v\nencoding/json: %+v", body, fast, ref)
		}
	}
	// The common shapes must take the fast path, or it saves nothing.
	for _, body := range completionCorpus[:7] {
		var w wireResponse
		if !fastCompletion([]byte(body), &w) {
			t.Errorf("left to encoding/json: %s", body)
		}
	}
	if handledAny < 15 {
		t.Errorf("only %d corpus bodies decoded by hand", handledAny)
	}
}

// TestDecodeCompletionFallsBackToEncodingJSON checks the client's decode of
// bodies the hand decoder refuses: the error member and folded keys still
// come out as encoding/json reads them.
func TestDecodeCompletionFallsBackToEncodingJSON(t *testing.T) {
	c := &Client{name: "p"}
	if _, err := c.decodeCompletion([]byte(`{"error":{"message":"overloaded","type":"server_error"}}`), 529); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("error body: %v", err)
	}
	r, err := c.decodeCompletion([]byte(`{"Model":"m","Choices":[{"Message":{"Content":"folded keys"},"finish_reason":"stop"}]}`), 200)
	if err != nil || r.Message.Content != "folded keys" || r.Model != "m" {
		t.Errorf("folded keys: %+v, %v", r, err)
	}
	r, err = c.decodeCompletion([]byte(completionCorpus[1]), 200)
	if err != nil || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Arguments != "{}" || r.Usage.TotalTokens != 15 {
		t.Errorf("tool call: %+v, %v", r, err)
	}
}

func FuzzFastCompletion(f *testing.F) {
	for _, body := range completionCorpus {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ref, handled, refErr := decodeCompletionBoth(body)
		if !handled {
			return
		}
		if refErr != nil {
			t.Fatalf("%q: handled by hand, but encoding/json fails: %v", body, refErr)
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Fatalf("%q\nby hand:       %+v\nencoding/json: %+v", body, fast, ref)
		}
	})
}

func BenchmarkDecodeCompletion(b *testing.B) {
	c := &Client{name: "p"}
	body := []byte(completionCorpus[0])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.decodeCompletion(body, 200); err != nil {
			b.Fatal(err)
		}
	}
}
