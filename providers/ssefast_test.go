package providers

import (
	"encoding/json"
	"reflect"
	"testing"
)

// chunkCorpus is stream events as providers send them, and as they go
// wrong: every one must decode by hand exactly as encoding/json decodes
// it, or be left to encoding/json.
var chunkCorpus = []string{
	// providertest, as the bench's fake sends them.
	`{"id":"chatcmpl-providertest","object":"chat.completion.chunk","created":1796324672,"model":"bench","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-providertest","object":"chat.completion.chunk","created":1796324672,"model":"bench","choices":[{"index":0,"delta":{"content":"Hello!"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-providertest","object":"chat.completion.chunk","created":1796324672,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	`{"id":"chatcmpl-providertest","object":"chat.completion.chunk","created":1796324672,"model":"bench","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
	// OpenAI, with the fields it adds.
	`{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1727000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"a1B2"}`,
	`{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1727000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"accepted_prediction_tokens":0}}}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-0.5,"bytes":[120],"top_logprobs":[]}]},"finish_reason":null}]}`,
	// Escapes, Unicode and damage inside the text.
	`{"choices":[{"index":0,"delta":{"content":"line\nbreak \"quoted\" \\ back\/slash \t tab"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \ud83d\ude00 emoji"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"lone \ud800 surrogate"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"ünïcödé 日本語 😀"}}]}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bad \xff\xfe utf8\"}}]}",
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"raw\x01control\"}}]}",
	`{"choices":[{"index":0,"delta":{"content":"bad \x escape"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"short \u12"}}]}`,
	// Shapes left to encoding/json.
	`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`,
	`{"error":{"message":"overloaded","type":"server_error","code":"529"}}`,
	`{"error":"plain text error"}`,
	`{"Model":"m","Choices":[{"Index":0,"Delta":{"Content":"folded keys"}}]}`,
	`{"model":"a","model":"b","choices":[]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":null}`,
	`{"choices":[{"index":1.0,"delta":{"content":"float index"}}]}`,
	`{"choices":[{"index":"0","delta":{"content":"string index"}}]}`,
	`{"choices":[{"index":99999999999999999999,"delta":{"content":"huge index"}}]}`,
	`{"model":null,"choices":[{"index":null,"delta":null,"finish_reason":null}]}`,
	`{"model":"m\u00e9","choices":[]}`,
	`{"model":42,"choices":[]}`,
	`{"mod\u0065l":"escaped key","choices":[]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"length"},{"index":1,"delta":{"content":"second choice"}}]}`,
	`{"usage":{"prompt_tokens":1,"PROMPT_TOKENS":2}}`,
	`{"usage":{"prompt_tokens":-3,"total_tokens":0}}`,
	`{"usage":{"prompt_tokens":1e3}}`,
	// Broken JSON.
	`{"choices":[{"index":0,"delta":{"content":"Hel`,
	`{"choices":[]} trailing`,
	`{"choices":[],}`,
	`{"a":01,"choices":[]}`,
	`{"a":-,"choices":[]}`,
	`{"a":1.,"choices":[]}`,
	`{"a":.5}`,
	`{"a":nul}`,
	`{"a":[1,2,]}`,
	`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}}}}}`,
	`[{"choices":[]}]`,
	`"just a string"`,
	`null`,
	``,
	`{}`,
	" \t{ \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"spaced\" } } ] }\r\n",
	`{"created":-1.5e+10,"x":true,"y":false,"z":[{},[],"s",0],"choices":[]}`,
}

// decodeBoth decodes payload into fast (by hand when fastChunk takes it)
// and ref (encoding/json), each reset first as the stream decoder resets
// its reused chunk.
func decodeBoth(payload []byte, fast, ref *streamChunk) (handled bool, refErr error) {
	fast.reset()
	handled = fastChunk(payload, fast)
	ref.reset()
	refErr = json.Unmarshal(payload, ref)
	return handled, refErr
}

func checkFastChunk(t *testing.T, payload []byte, fast, ref *streamChunk) bool {
	t.Helper()
	handled, refErr := decodeBoth(payload, fast, ref)
	if !handled {
		return false
	}
	if refErr != nil {
		t.Fatalf("%q: decoded by hand, but encoding/json fails: %v", payload, refErr)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("%q:\nby hand       %+v\nencoding/json %+v", payload, *fast, *ref)
	}
	return true
}

// TestFastChunkMatchesEncodingJSON checks the hand decoder against
// encoding/json on the corpus, through one reused chunk as a stream uses
// it, and that it does take the common shapes.
func TestFastChunkMatchesEncodingJSON(t *testing.T) {
	var fast, ref streamChunk
	handled := map[string]bool{}
	for _, p := range chunkCorpus {
		handled[p] = checkFastChunk(t, []byte(p), &fast, &ref)
	}
	for _, p := range chunkCorpus[:8] {
		if !handled[p] {
			t.Errorf("the common event %s was left to encoding/json", p)
		}
	}
}

func FuzzFastChunk(f *testing.F) {
	for _, p := range chunkCorpus {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var fast, ref streamChunk
		checkFastChunk(t, payload, &fast, &ref)
	})
}

// BenchmarkStreamEvent decodes one text delta event as a stream does.
func BenchmarkStreamEvent(b *testing.B) {
	payload := []byte(chunkCorpus[1])
	d := newStreamDecoder("bench", nil, func(Delta) {}, 1<<20, 1<<30)
	defer d.release()
	b.ReportAllocs()
	for b.Loop() {
		if err := d.handleData(payload, 200); err != nil {
			b.Fatal(err)
		}
		d.content.Reset()
		d.text = 0
	}
}
