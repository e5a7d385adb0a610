package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// unknownKey finds, in data (a config file's JSON), the first key that no
// field of [Config] decodes, and returns its dotted path and the known key
// at the same level closest in spelling ("" when none is close). ok is
// false when every key is known.
func unknownKey(data []byte) (path, suggest string, ok bool) {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return "", "", false
	}
	return walkUnknown(doc, reflect.TypeFor[Config](), "")
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
		if !isObj || t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
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
