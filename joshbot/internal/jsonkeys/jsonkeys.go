// Package jsonkeys walks Go structs by their JSON key names: it sets a
// value at a dotted key from text (the config's environment overrides) and
// finds the first key of a document that a struct does not decode, with
// the known key closest in spelling (the config's unknown-key errors).
package jsonkeys

import (
	"encoding"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// textUnmarshalerType is the reflect.Type of encoding.TextUnmarshaler.
func textUnmarshalerType() reflect.Type { return reflect.TypeFor[encoding.TextUnmarshaler]() }

// SetPath walks v (a settable struct or map value) by JSON key names
// along path and sets the leaf it reaches from text: a string, bool,
// number, or a type that unmarshals text. Errors name the dotted key.
func SetPath(v reflect.Value, path []string, text string) error {
	key := strings.Join(path, ".")
	for i, part := range path {
		switch v.Kind() {
		case reflect.Struct:
			f, ok := fieldByJSONName(v, part)
			if !ok {
				return errorf("no config key %q", strings.Join(path[:i+1], "."))
			}
			v = f
		case reflect.Map:
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if cur := v.MapIndex(reflect.ValueOf(part)); cur.IsValid() {
				elem.Set(cur)
			}
			if err := SetPath(elem, path[i+1:], text); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(part), elem)
			return nil
		default:
			return errorf("no config key %q", strings.Join(path[:i+1], "."))
		}
	}
	return setLeaf(v, key, text)
}

func fieldByJSONName(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func setLeaf(v reflect.Value, key, text string) error {
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		if err := setLeaf(p.Elem(), key, text); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if v.CanAddr() && v.Addr().Type().Implements(textUnmarshalerType()) {
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			return errorf("%s: %w", key, err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return errorf("%s must be true or false, not %q", key, text)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return errorf("%s must be a whole number, not %q", key, text)
		}
		v.SetInt(n)
	case reflect.Float64, reflect.Float32:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return errorf("%s must be a number, not %q", key, text)
		}
		v.SetFloat(f)
	default:
		return errorf("%s cannot be set from the environment; edit config.json", key)
	}
	return nil
}

// Unknown finds, in doc (a decoded JSON document), the first key that no
// field of t decodes, and returns its dotted path and the known key at the
// same level closest in spelling ("" when none is close). ok is false when
// every key is known.
func Unknown(doc any, t reflect.Type) (path, suggest string, ok bool) {
	return walkUnknown(doc, t, "")
}

func walkUnknown(doc any, t reflect.Type, prefix string) (string, string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, isObj := doc.(map[string]any)
		if !isObj || t.Implements(textUnmarshalerType()) || reflect.PointerTo(t).Implements(textUnmarshalerType()) {
			return "", "", false
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, known := fields[k]
			if !known {
				// encoding/json matches field names case-insensitively.
				for name, f := range fields {
					if strings.EqualFold(name, k) {
						ft, known = f, true
						break
					}
				}
			}
			if !known {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				return join(k), closest(k, names), true
			}
			if p, s, ok := walkUnknown(obj[k], ft, join(k)); ok {
				return p, s, ok
			}
		}
	case reflect.Map:
		obj, isObj := doc.(map[string]any)
		if !isObj {
			return "", "", false
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, s, ok := walkUnknown(obj[k], t.Elem(), join(k)); ok {
				return p, s, ok
			}
		}
	case reflect.Slice, reflect.Array:
		arr, isArr := doc.([]any)
		if !isArr {
			return "", "", false
		}
		for i, e := range arr {
			if p, s, ok := walkUnknown(e, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return p, s, ok
			}
		}
	}
	return "", "", false
}

// jsonFields maps the JSON names of t's fields (embedded structs
// flattened, as encoding/json does) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out[tag] = f.Type
	}
	return out
}

// closest returns the name in names nearest to k in edit distance, if it
// is near enough to be a misspelling of it (at most a third of its
// letters, and at least one, differ); "" otherwise.
func closest(k string, names []string) string {
	sort.Strings(names)
	best, bestD := "", max(1, len(k)/3)+1
	for _, n := range names {
		if d := editDistance(strings.ToLower(k), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (with adjacent
// transpositions) between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
