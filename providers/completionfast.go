package providers

// A whole (unstreamed) answer is read by hand when it has the common
// shape, with the same parser as the stream's events: the choices'
// messages with their text and tool calls, the finish reason, the model
// and the usage. Anything else (an error member, a key that differs from
// a field's only by case, a duplicate key, a number where encoding/json
// would want another) is left to encoding/json, which decodes the body as
// before. A one-shot turn decodes one such body, and encoding/json's
// first use of wireResponse builds its decoders by reflection: some
// 40 KB of fresh memory that a short-lived process pays for in page
// faults. The result is the one encoding/json gives
// (TestFastCompletionMatchesEncodingJSON, FuzzFastCompletion).

// fastCompletion decodes body into w, which must be zero, and reports
// whether it could; on false w is in an unspecified state and must be
// zeroed before encoding/json decodes the body.
func fastCompletion(body []byte, w *wireResponse) bool {
	p := chunkParser{b: body}
	if !p.completion(w) {
		return false
	}
	p.space()
	return p.i == len(p.b)
}

func (p *chunkParser) completion(w *wireResponse) bool {
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "model":
			return p.str(&w.Model)
		case "choices":
			if p.literal("null") {
				w.Choices = nil
				return true
			}
			if !p.eat('[') {
				return false
			}
			// Non-nil even when empty, as encoding/json leaves it; w is
			// zero and a repeated key is refused, so this runs once.
			w.Choices = make([]wireChoice, 0, 1)
			return p.elements(func() bool {
				w.Choices = append(w.Choices, wireChoice{})
				return p.wholeChoice(&w.Choices[len(w.Choices)-1])
			})
		case "usage":
			return p.usage(&w.Usage)
		case "error":
			return p.literal("null")
		}
		return p.skipOther(key, "model", "choices", "usage", "error")
	})
}

// elements reads an array's elements, the parser past its '[': each
// reads one element.
func (p *chunkParser) elements(each func() bool) bool {
	if p.eat(']') {
		return true
	}
	for {
		if !each() {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// usage reads a usage object into a new *Usage at *dst; null sets nil.
func (p *chunkParser) usage(dst **Usage) bool {
	if p.literal("null") {
		*dst = nil
		return true
	}
	u := &Usage{}
	*dst = u
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return p.literal("null") || p.integer(&u.PromptTokens)
		case "completion_tokens":
			return p.literal("null") || p.integer(&u.CompletionTokens)
		case "total_tokens":
			return p.literal("null") || p.integer(&u.TotalTokens)
		}
		return p.skipOther(key, "prompt_tokens", "completion_tokens", "total_tokens")
	})
}

func (p *chunkParser) wholeChoice(ch *wireChoice) bool {
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "finish_reason":
			return p.str(&ch.FinishReason)
		case "message":
			if p.literal("null") {
				return true
			}
			m := &ch.Message
			return p.members(func(key []byte) bool {
				switch string(key) {
				case "role":
					return p.str(&m.Role)
				case "content":
					return p.str(&m.Content)
				case "tool_calls":
					return p.toolCalls(&m.ToolCalls)
				}
				return p.skipOther(key, "role", "content", "tool_calls")
			})
		}
		return p.skipOther(key, "finish_reason", "message")
	})
}

// toolCalls reads a message's tool calls; null sets nil.
func (p *chunkParser) toolCalls(dst *[]wireToolCall) bool {
	if p.literal("null") {
		*dst = nil
		return true
	}
	if !p.eat('[') {
		return false
	}
	calls := make([]wireToolCall, 0, 1)
	if !p.elements(func() bool {
		calls = append(calls, wireToolCall{})
		return p.toolCall(&calls[len(calls)-1])
	}) {
		return false
	}
	*dst = calls
	return true
}

func (p *chunkParser) toolCall(tc *wireToolCall) bool {
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "index":
			if p.literal("null") {
				tc.Index = nil
				return true
			}
			var n int
			if !p.integer(&n) {
				return false
			}
			tc.Index = &n
			return true
		case "id":
			return p.str(&tc.ID)
		case "type":
			return p.str(&tc.Type)
		case "function":
			if p.literal("null") {
				return true
			}
			f := &tc.Function
			return p.members(func(key []byte) bool {
				switch string(key) {
				case "name":
					return p.str(&f.Name)
				case "arguments":
					// encoding/json gives a RawMessage the value's own
					// bytes, null included, without the white space
					// around it.
					p.space()
					start := p.i
					if !p.skip(64) {
						return false
					}
					f.Arguments = append([]byte(nil), p.b[start:p.i]...)
					return true
				}
				return p.skipOther(key, "name", "arguments")
			})
		}
		return p.skipOther(key, "index", "id", "type", "function")
	})
}
