package providers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The events of a streamed answer are read by hand when they have the
// common shape: an object whose choices hold text deltas, with string,
// number, null and nested values the decoder needs nothing of skipped.
// Anything else (a tool call, an error, a key that differs from a field's
// only by case, a duplicate key, a number where encoding/json would want
// another) is left to encoding/json, which decodes that event as before.
// Each event costs encoding/json several microseconds of reflection, and
// the first delta's stands before the answer's first byte. The result is
// the one encoding/json gives (TestFastChunkMatchesEncodingJSON,
// FuzzFastChunk).

// fastChunk decodes payload into c, which must be reset, and reports
// whether it could; on false c is in an unspecified state and must be
// reset before encoding/json decodes the payload.
func fastChunk(payload []byte, c *streamChunk) bool {
	p := chunkParser{b: payload}
	if !p.chunk(c) {
		return false
	}
	p.space()
	return p.i == len(p.b)
}

// chunkParser reads one JSON value from b, from offset i.
type chunkParser struct {
	b []byte
	i int
}

func (p *chunkParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (p *chunkParser) peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// eat consumes c after white space, reporting whether it was there.
func (p *chunkParser) eat(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// literal consumes null, true or false.
func (p *chunkParser) literal(word string) bool {
	if p.peek() != word[0] || !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return false
	}
	p.i += len(word)
	return true
}

// members reads an object's members, calling member with each key (its
// raw bytes, which hold no escapes) with the parser at the value. Keys
// that repeat, or that hold escapes, are refused.
func (p *chunkParser) members(member func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	var seen [16][]byte
	n := 0
	for {
		key, ok := p.plainString()
		if !ok || !p.eat(':') {
			return false
		}
		for _, k := range seen[:n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = key
		n++
		if !member(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// plainString reads a string without escapes or control characters and
// returns its bytes, unquoted and valid UTF-8.
func (p *chunkParser) plainString() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// str reads a string value into *dst; null leaves *dst as it is, as
// encoding/json does. A string with escapes or invalid UTF-8 is decoded
// by encoding/json, which replaces what it cannot decode.
func (p *chunkParser) str(dst *string) bool {
	if p.literal("null") {
		return true
	}
	start := p.i
	if s, ok := p.plainString(); ok {
		*dst = string(s)
		return true
	}
	p.i = start
	end, ok := p.skipString()
	if !ok {
		return false
	}
	if err := json.Unmarshal(p.b[start:end], dst); err != nil {
		return false
	}
	p.i = end
	return true
}

// skipString moves past a string value (escapes checked as encoding/json
// checks them) and returns the offset after its closing quote.
func (p *chunkParser) skipString() (int, bool) {
	if !p.eat('"') {
		return 0, false
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.i, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return 0, false
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) {
					return 0, false
				}
				for _, h := range p.b[p.i+2 : p.i+6] {
					if !isHex(h) {
						return 0, false
					}
				}
				p.i += 6
			default:
				return 0, false
			}
		default:
			p.i++
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// integer reads a number with no fraction or exponent that fits an int.
func (p *chunkParser) integer(dst *int) bool {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.i-digits > 1 && p.b[digits] == '0' || p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return false
	}
	n, err := strconv.Atoi(string(p.b[start:p.i]))
	if err != nil {
		return false
	}
	*dst = n
	return true
}

// skipNumber moves past a number in JSON's grammar.
func (p *chunkParser) skipNumber() bool {
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		start := p.i
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i - start
	}
	start := p.i
	n := digits()
	if n == 0 || n > 1 && p.b[start] == '0' {
		return false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// skip moves past any value, nested no deeper than depth.
func (p *chunkParser) skip(depth int) bool {
	switch c := p.peek(); {
	case c == '"':
		_, ok := p.skipString()
		return ok
	case c == '-' || '0' <= c && c <= '9':
		return p.skipNumber()
	case c == 'n':
		return p.literal("null")
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case depth == 0:
		return false
	case c == '[':
		p.i++
		if p.eat(']') {
			return true
		}
		for {
			if !p.skip(depth - 1) {
				return false
			}
			if p.eat(']') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '{':
		return p.members(func([]byte) bool { return p.skip(depth - 1) })
	}
	return false
}

// skipOther skips the value of a key the decoder has no field for, and
// refuses a key encoding/json would match to one of fields ignoring case.
func (p *chunkParser) skipOther(key []byte, fields ...string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return false
		}
	}
	return p.skip(8)
}

func (p *chunkParser) chunk(c *streamChunk) bool {
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "model":
			start := p.i
			p.space()
			vstart := p.i
			if _, ok := p.plainString(); !ok {
				p.i = start
				return false
			}
			c.Model = append(c.Model[:0], p.b[vstart:p.i]...)
			return true
		case "choices":
			if p.literal("null") {
				return false // encoding/json sets nil; leave it to it
			}
			if !p.eat('[') {
				return false
			}
			if p.eat(']') {
				if c.Choices == nil {
					c.Choices = []streamChoice{} // as encoding/json leaves it
				}
				return true
			}
			return p.elements(func() bool {
				c.Choices = append(c.Choices, streamChoice{})
				return p.choice(&c.Choices[len(c.Choices)-1])
			})
		case "usage":
			return p.usage(&c.Usage)
		case "error":
			return p.literal("null")
		}
		return p.skipOther(key, "model", "choices", "usage", "error")
	})
}

func (p *chunkParser) choice(ch *streamChoice) bool {
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "index":
			return p.literal("null") || p.integer(&ch.Index)
		case "finish_reason":
			return p.str(&ch.FinishReason)
		case "delta":
			if p.literal("null") {
				return true
			}
			return p.members(func(key []byte) bool {
				switch string(key) {
				case "content":
					return p.str(&ch.Delta.Content)
				case "tool_calls":
					return p.literal("null")
				}
				return p.skipOther(key, "content", "tool_calls")
			})
		}
		return p.skipOther(key, "index", "finish_reason", "delta")
	})
}
