package jsonkeys

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// jsonUnmarshalerType is the reflect.Type of json.Unmarshaler. It and
// textUnmarshalerType are functions rather than package variables so that
// the package has no init code.
func jsonUnmarshalerType() reflect.Type { return reflect.TypeFor[json.Unmarshaler]() }

// Decode decodes data, one JSON object, into the struct dst points to,
// as a json.Decoder with DisallowUnknownFields would, but member by
// member: encoding/json builds the codecs of a struct type the first time
// a process decodes one, for the whole tree of types below it (their
// encoders too), while Decode walks the structs itself and hands
// encoding/json only the values the document holds. For the config,
// which a new process reads at once and which sets a few of its many
// sections, that is half the reflection and half its allocations.
//
// It reports false when the document is anything but a plain object whose
// keys each name one exported field exactly (a syntax error, an unknown
// key or one in other letter case, a value of the wrong type, data after
// the object, embedded fields or a ",string" field in the way): dst may
// then be partly written, and the caller decodes the document again, from
// scratch, with encoding/json, whose result and error are the answer.
func Decode(data []byte, dst any) bool {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || !splittable(v.Elem().Type()) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers reach setBasic as written
	if !decodeStruct(dec, v.Elem()) {
		return false
	}
	_, err := dec.Token() // only white space may follow
	return err == io.EOF
}

// decodeStruct decodes the next value of dec, an object or null, into
// the struct v.
func decodeStruct(dec *json.Decoder, v reflect.Value) bool {
	t, err := dec.Token()
	if err != nil {
		return false
	}
	if t == nil {
		return true // null leaves a struct as it is
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return false
		}
		f, ok := exactField(v, key)
		if !ok {
			return false
		}
		if splittable(f.Type()) {
			if !decodeStruct(dec, f) {
				return false
			}
			continue
		}
		if basic(f.Type()) {
			if t, err := dec.Token(); err != nil || !setBasic(f, t) {
				return false
			}
			continue
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return false
		}
		leaf := json.NewDecoder(bytes.NewReader(raw))
		leaf.DisallowUnknownFields()
		if leaf.Decode(f.Addr().Interface()) != nil {
			return false
		}
	}
	_, err = dec.Token() // the closing brace
	return err == nil
}

// splittable reports whether Decode walks a struct of type t itself: a
// struct that does not decode itself and has no embedded fields.
func splittable(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || t.Implements(jsonUnmarshalerType()) || reflect.PointerTo(t).Implements(jsonUnmarshalerType()) ||
		t.Implements(textUnmarshalerType()) || reflect.PointerTo(t).Implements(textUnmarshalerType()) {
		return false
	}
	for i := range t.NumField() {
		if t.Field(i).Anonymous {
			return false
		}
	}
	return true
}

// basic reports whether a value of type t is a bool, number or string
// that encoding/json decodes plainly: no decoding method of its own, not
// a json.Number.
func basic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Float32, reflect.Float64:
	default:
		return false
	}
	p := reflect.PointerTo(t)
	return t != reflect.TypeFor[json.Number]() && !p.Implements(jsonUnmarshalerType()) && !p.Implements(textUnmarshalerType())
}

// setBasic stores the token t (from a decoder that uses json.Number) in
// the basic value v as encoding/json would; false when encoding/json would
// refuse it or t is not a single value. A null leaves v as it is.
func setBasic(v reflect.Value, t json.Token) bool {
	switch t := t.(type) {
	case nil:
		return true
	case bool:
		if v.Kind() != reflect.Bool {
			return false
		}
		v.SetBool(t)
	case string:
		if v.Kind() != reflect.String {
			return false
		}
		v.SetString(t)
	case json.Number:
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(string(t), 10, 64)
			if err != nil || v.OverflowInt(n) {
				return false
			}
			v.SetInt(n)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n, err := strconv.ParseUint(string(t), 10, 64)
			if err != nil || v.OverflowUint(n) {
				return false
			}
			v.SetUint(n)
		case reflect.Float32, reflect.Float64:
			n, err := strconv.ParseFloat(string(t), v.Type().Bits())
			if err != nil || v.OverflowFloat(n) {
				return false
			}
			v.SetFloat(n)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// exactField returns the one exported field of the struct v whose JSON
// name is key, spelled exactly so; false also for a ",string" field.
func exactField(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	found := -1
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if name != key {
			continue
		}
		if found >= 0 || strings.Contains(","+opts+",", ",string,") {
			return reflect.Value{}, false
		}
		found = i
	}
	if found < 0 {
		return reflect.Value{}, false
	}
	return v.Field(found), true
}
