package memory

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// encodeLine appends m to buf as one session line, the bytes
// json.Encoder writes for it with HTML escaping off, newline included
// (TestEncodeLineIsEncodingJSONs), but written by hand: encoding/json
// spends more building its encoders for Message, the first time a process
// meets the type, than a turn's saves spend encoding. enc, an Encoder
// into buf, encodes the message when the hand-written form cannot: a time
// that does not encode, whose error is encoding/json's.
func encodeLine(buf *bytes.Buffer, enc *json.Encoder, m *Message) error {
	var ts []byte
	if !m.Time.IsZero() {
		var err error
		if ts, err = m.Time.MarshalJSON(); err != nil {
			return enc.Encode(m)
		}
	}
	n := 96 + len(m.Role) + len(m.Content) + len(m.ToolCallID) + len(m.Name) + len(ts) + len(m.Kind) + 128*len(m.Attachments)
	for i := range m.ToolCalls {
		n += 48 + len(m.ToolCalls[i].ID) + len(m.ToolCalls[i].Name) + len(m.ToolCalls[i].Arguments)*9/8
	}
	buf.Grow(n + len(m.Content)/16)
	b := buf.AvailableBuffer()
	b = append(b, `{"role":`...)
	b = appendString(b, m.Role)
	if m.Content != "" {
		b = append(b, `,"content":`...)
		b = appendString(b, m.Content)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i := range m.ToolCalls {
			c := &m.ToolCalls[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendString(b, c.ID)
			b = append(b, `,"name":`...)
			b = appendString(b, c.Name)
			b = append(b, `,"arguments":`...)
			b = appendString(b, c.Arguments)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = appendString(b, m.ToolCallID)
	}
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, m.Name)
	}
	if ts != nil {
		b = append(b, `,"ts":`...)
		b = append(b, ts...)
	}
	if m.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendString(b, m.Kind)
	}
	if len(m.Attachments) > 0 {
		b = append(b, `,"attachments":[`...)
		for i := range m.Attachments {
			a := &m.Attachments[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = appendString(b, a.Kind)
			b = append(b, `,"type":`...)
			b = appendString(b, a.Type)
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, a.Size, 10)
			b = append(b, `,"sha256":`...)
			b = appendString(b, a.SHA256)
			if a.Label != "" {
				b = append(b, `,"label":`...)
				b = appendString(b, a.Label)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	buf.Write(b)
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it
// with HTML escaping off: quotes, backslashes and control characters
// escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
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
