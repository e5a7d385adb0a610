package report

import (
	"encoding"
	"encoding/json"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
)

// The sources of a setting's value in [ConfigSettings].
const (
	SourceDefault     = "default"
	SourceFile        = "file"
	SourceProfile     = "profile"
	SourceEnvironment = "environment"
)

// ConfigSettings lists every settable key of cfg, the config as start-up
// loads it (profile applied, api_key_env variables read, environment
// overrides applied, validated), with raw the file's JSON as written (nil
// without a file) and environ the environment (os.Environ's form). Each
// entry has the effective value and its source: environment (a JOSHBOT_
// override, or the variable an api_key_env names), profile (the selected
// profile replaced models_config), file, or default. Credentials show as
// (set) or (unset), never their value. Keys are sorted.
func ConfigSettings(cfg *config.Config, raw map[string]any, environ []string) []output.ConfigEntry {
	inFile := flattenAny(raw)
	overrides := map[string]bool{}
	for _, e := range environ {
		name, value, ok := strings.Cut(e, "=")
		if !ok || value == "" || !strings.HasPrefix(name, config.EnvPrefix) || !strings.Contains(name, "__") {
			continue
		}
		overrides[strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, config.EnvPrefix)), "__", ".")] = true
	}
	leaves := map[string]string{}
	walkSettings(reflect.ValueOf(cfg).Elem(), "", leaves)
	keys := make([]string, 0, len(leaves))
	for k := range leaves {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]output.ConfigEntry, 0, len(keys))
	for _, k := range keys {
		v := leaves[k]
		src := SourceDefault
		switch {
		case overrides[k]:
			src = SourceEnvironment
		case strings.HasSuffix(k, ".api_key") && inFile[k+"_env"] != "" && v != `""`:
			// Read from the variable api_key_env names.
			src = SourceEnvironment
		case cfg.Profile() != "" && strings.HasPrefix(k, "models_config."):
			src = SourceProfile
		case inFileAt(inFile, k):
			src = SourceFile
		}
		if secretKey(k) || strings.HasSuffix(k, ".api_keys") {
			if v == `""` || v == "null" || v == "[]" {
				v = "(unset)"
			} else {
				v = "(set)"
			}
		}
		out = append(out, output.ConfigEntry{Key: k, Value: redactURL(v), Source: src})
	}
	return out
}

// redactURL hides the password of a URL value (a JSON string), as
// url.URL.Redacted does; any other value is returned unchanged.
func redactURL(v string) string {
	var s string
	if json.Unmarshal([]byte(v), &s) != nil || !strings.Contains(s, "@") {
		return v
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil || u.Host == "" {
		return v
	}
	b, _ := json.Marshal(u.Redacted())
	return string(b)
}

// inFileAt reports whether the file sets key k, itself or as part of a
// value written whole (an array, an object of free-form entries).
func inFileAt(inFile map[string]string, k string) bool {
	for p := k; ; {
		if _, ok := inFile[p]; ok {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// jsonMarshalerType and textMarshalerType are functions rather than
// package variables so that the package has no init code.
func jsonMarshalerType() reflect.Type { return reflect.TypeFor[json.Marshaler]() }

func textMarshalerType() reflect.Type { return reflect.TypeFor[encoding.TextMarshaler]() }

// walkSettings records every leaf under v by its dotted JSON key: structs
// and maps (of structs, or non-empty) are descended (a nil pointer to a struct as its
// zero value), everything else is a leaf encoded as JSON.
func walkSettings(v reflect.Value, prefix string, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	t := v.Type()
	leaf := t.Implements(jsonMarshalerType()) || t.Implements(textMarshalerType()) ||
		reflect.PointerTo(t).Implements(jsonMarshalerType()) || reflect.PointerTo(t).Implements(textMarshalerType())
	switch {
	case !leaf && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		if v.IsNil() {
			v = reflect.New(t.Elem())
		}
		walkSettings(v.Elem(), prefix, out)
		return
	case !leaf && t.Kind() == reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" {
				continue
			}
			if f.Anonymous && tag == "" {
				walkSettings(v.Field(i), prefix, out)
				continue
			}
			if tag == "" {
				tag = f.Name
			}
			walkSettings(v.Field(i), join(tag), out)
		}
		return
	case !leaf && t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && (structLike(t.Elem()) || v.Len() > 0):
		// Entries of a free-form map (an MCP server's env, headers) are
		// keys of their own, so a credential among them is recognised.
		for _, k := range v.MapKeys() {
			walkSettings(v.MapIndex(k), join(k.String()), out)
		}
		return
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		b = []byte("null")
	}
	out[prefix] = string(b)
}

// structLike reports whether t is a struct or a pointer to one.
func structLike(t reflect.Type) bool {
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
}
