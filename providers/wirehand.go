package providers

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The common request, text only, is written by hand: encoding/json
// spends more on building its encoders for these types, the first time
// a process meets them, than on the encoding a one-shot turn then does.
// The bytes are the ones encoding/json writes with HTML escaping off
// (TestHandWrittenWireIsEncodingJSONs).

// appendHead appends the opening of a text-only request body,
// {"model":…,"messages":[…] without the closing brace (no messages is
// an empty array), filling in the "function" type of tool calls that
// lack one.
func appendHead(dst []byte, model string, msgs []Message) []byte {
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, model)
	dst = append(dst, `,"messages":[`...)
	for i := range msgs {
		m := &msgs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = appendString(dst, m.Role)
		dst = append(dst, `,"content":`...)
		dst = appendString(dst, m.Content)
		if m.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = appendString(dst, m.Name)
		}
		if len(m.ToolCalls) > 0 {
			dst = append(dst, `,"tool_calls":[`...)
			for j := range m.ToolCalls {
				c := &m.ToolCalls[j]
				if j > 0 {
					dst = append(dst, ',')
				}
				typ := c.Type
				if typ == "" {
					typ = "function"
				}
				dst = append(dst, `{"id":`...)
				dst = appendString(dst, c.ID)
				dst = append(dst, `,"type":`...)
				dst = appendString(dst, typ)
				dst = append(dst, `,"function":{"name":`...)
				dst = appendString(dst, c.Function.Name)
				dst = append(dst, `,"arguments":`...)
				dst = appendString(dst, c.Function.Arguments)
				dst = append(dst, "}}"...)
			}
			dst = append(dst, ']')
		}
		if m.ToolCallID != "" {
			dst = append(dst, `,"tool_call_id":`...)
			dst = appendString(dst, m.ToolCallID)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendTools appends the JSON array of tools, giving an untyped one the
// type "function"; false when a parameter schema is not valid JSON, which
// encoding/json then reports.
func appendTools(dst []byte, tools []ToolDefinition) ([]byte, bool) {
	if tools == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i := range tools {
		f := &tools[i].Function
		if i > 0 {
			dst = append(dst, ',')
		}
		typ := tools[i].Type
		if typ == "" {
			typ = "function"
		}
		dst = append(dst, `{"type":`...)
		dst = appendString(dst, typ)
		dst = append(dst, `,"function":{"name":`...)
		dst = appendString(dst, f.Name)
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = appendString(dst, f.Description)
		}
		if len(f.Parameters) > 0 {
			dst = append(dst, `,"parameters":`...)
			b := bytes.NewBuffer(dst)
			if json.Compact(b, f.Parameters) != nil {
				return nil, false
			}
			dst = b.Bytes()
		}
		dst = append(dst, "}}"...)
	}
	return append(dst, ']'), true
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it
// with HTML escaping off: quotes, backslashes and control characters
// escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	next := 0 // where the next eight-byte look may start
	for i := 0; i < len(s); {
		// Most text is plain ASCII: eight bytes at a time are let through
		// while none of them needs a look (a system prompt of some
		// kilobytes stands before every request's first byte). A word
		// that does need one is taken byte by byte, so text full of
		// escapes or other scripts pays one look per eight bytes.
		if i >= next && i+8 <= len(s) {
			if plainWord(s[i : i+8]) {
				i += 8
				continue
			}
			next = i + 8
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainWord reports whether none of the eight bytes of w is a control
// character, a quote, a backslash or outside ASCII: bytes appendString
// copies as they are. It may report false for a plain word (the byte loop
// then decides), never true for one that is not.
func plainWord(w string) bool {
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs } // some byte of v is 0
	return (x&highs | zero(x&(0x60*ones)) | zero(x^('"'*ones)) | zero(x^('\\'*ones))) == 0
}
