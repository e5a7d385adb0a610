package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
)

// A fastSchema is a parameter schema of the shape every builtin tool has,
// read without jsonschema-go: building jsonschema-go's decoder and resolving
// a schema cost a short-lived process most of a millisecond on a tool's
// first call, while deciding that ordinary arguments fit this shape costs
// microseconds. It only ever says "valid"; anything else goes to
// jsonschema-go, which words the error, so it must never accept what
// jsonschema-go refuses (TestFastArgCheckAgrees, FuzzFastArgCheck).
//
// The shape is {"type":"object","properties":{...},"required":[...]}
// (properties, required and a description optional) whose properties are
// fastValues. Arguments the schema does not name are allowed, as
// jsonschema-go allows them without additionalProperties.
type fastSchema struct {
	props    map[string]*fastValue
	required []string
}

// A fastValue is a property's schema: a type (string, integer, number,
// boolean or array), with optionally a description, an enum of strings,
// numbers and booleans, minimum and maximum (inclusive, on numbers),
// minItems, maxItems and items (a fastValue, on arrays).
type fastValue struct {
	typ                string
	enum               []any // nil when absent; empty matches nothing
	minimum, maximum   *float64
	minItems, maxItems int // maxItems < 0 when absent
	items              *fastValue
}

// compileFast reads params into a fastSchema, or returns nil when it uses
// any keyword or form outside the shape, names a member twice, or is not
// JSON. Twice matters: jsonschema-go decodes into a struct, which merges
// two "properties" objects where a map keeps only the last.
func compileFast(params []byte) *fastSchema {
	v, err := decodeUnique(json.NewDecoder(bytes.NewReader(params)))
	root, ok := v.(map[string]any)
	if err != nil || !ok || root["type"] != "object" {
		return nil
	}
	s := &fastSchema{props: map[string]*fastValue{}}
	for k, v := range root {
		switch k {
		case "type":
		case "description":
			if _, ok := v.(string); !ok {
				return nil
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, p := range props {
				if s.props[name] = compileValue(p); s.props[name] == nil {
					return nil
				}
			}
		case "required":
			names, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, n := range names {
				name, ok := n.(string)
				if !ok {
					return nil
				}
				s.required = append(s.required, name)
			}
		default:
			return nil
		}
	}
	return s
}

// compileValue reads a property's schema, or returns nil when it is outside
// the shape fastValue describes.
func compileValue(v any) *fastValue {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	f := &fastValue{maxItems: -1}
	switch t := m["type"]; t {
	case "string", "integer", "number", "boolean", "array":
		f.typ = t.(string)
	default:
		return nil
	}
	for k, v := range m {
		ok := true
		switch k {
		case "type":
		case "description":
			_, ok = v.(string)
		case "enum":
			var list []any
			list, ok = v.([]any)
			for _, e := range list {
				switch e.(type) {
				case string, float64, bool:
				default:
					ok = false
				}
			}
			f.enum = list
		case "minimum", "maximum":
			n, isNum := v.(float64)
			ok = isNum
			if k == "minimum" {
				f.minimum = &n
			} else {
				f.maximum = &n
			}
		case "minItems", "maxItems":
			n, isNum := v.(float64)
			ok = isNum && n >= 0 && n <= math.MaxInt32 && n == math.Trunc(n)
			if k == "minItems" {
				f.minItems = int(n)
			} else {
				f.maxItems = int(n)
			}
		case "items":
			f.items = compileValue(v)
			ok = f.items != nil
		default:
			ok = false
		}
		if !ok {
			return nil
		}
	}
	return f
}

// errDuplicate is a JSON object that names a member twice.
var errDuplicate = errors.New("duplicate member")

// decodeUnique decodes the next JSON value from dec as json.Unmarshal
// decodes into an any, but fails on an object that names a member twice.
func decodeUnique(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := tok.(string) // the decoder allows nothing else here
			if _, dup := m[k]; dup {
				return nil, errDuplicate
			}
			if m[k], err = decodeUnique(dec); err != nil {
				return nil, err
			}
		}
		_, err = dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeUnique(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

// valid reports whether args, decoded and with null members dropped,
// satisfy s. False means "ask jsonschema-go", not "invalid".
func (s *fastSchema) valid(args map[string]any) bool {
	for _, name := range s.required {
		if _, ok := args[name]; !ok {
			return false
		}
	}
	for name, v := range args {
		if p := s.props[name]; p != nil && !p.valid(v) {
			return false
		}
	}
	return true
}

// valid reports whether v satisfies f, as jsonschema-go decides it: an
// integer is any number without a fractional part (5.0 is one), a number
// is any number, and each bound applies only to values of its kind.
func (f *fastValue) valid(v any) bool {
	switch x := v.(type) {
	case string:
		if f.typ != "string" {
			return false
		}
	case bool:
		if f.typ != "boolean" {
			return false
		}
	case float64:
		if f.typ != "number" && (f.typ != "integer" || x != math.Trunc(x)) {
			return false
		}
		if f.minimum != nil && x < *f.minimum || f.maximum != nil && x > *f.maximum {
			return false
		}
	case []any:
		if f.typ != "array" || len(x) < f.minItems || f.maxItems >= 0 && len(x) > f.maxItems {
			return false
		}
		if f.items != nil {
			for _, e := range x {
				if !f.items.valid(e) {
					return false
				}
			}
		}
	default: // null or an object: no property type here admits them
		return false
	}
	if f.enum == nil {
		return true
	}
	for _, e := range f.enum {
		// Both sides are a string, a float64 or a bool, or v is an array
		// and differs in type from every member, so == cannot panic and
		// compares numbers by value as jsonschema-go does.
		if e == v {
			return true
		}
	}
	return false
}
