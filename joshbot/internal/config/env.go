package config

import (
	"encoding"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// EnvPrefix starts every environment override.
const EnvPrefix = "JOSHBOT_"

// ApplyEnv applies overrides from environ (os.Environ's form). A variable
// JOSHBOT_A__B__C sets the key a.b.c; only variables with a double
// underscore are overrides, so JOSHBOT_HOME and the like are left alone. An
// override naming no key, or carrying a value of the wrong type, is an error
// naming the variable: an operator raising a limit from the environment must
// not silently keep the old one.
func ApplyEnv(c *Config, environ []string) error {
	type kv struct{ name, value string }
	var vars []kv
	for _, e := range environ {
		name, value, ok := strings.Cut(e, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || !strings.Contains(name, "__") {
			continue
		}
		vars = append(vars, kv{name, value})
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].name < vars[j].name })
	for _, v := range vars {
		path := strings.Split(strings.ToLower(strings.TrimPrefix(v.name, EnvPrefix)), "__")
		if err := setPath(reflect.ValueOf(c).Elem(), path, v.value); err != nil {
			return fmt.Errorf("environment variable %s: %w", v.name, err)
		}
		if n := len(path); n >= 2 && path[n-1] == "api_key" {
			key := strings.Join(path[:n-1], ".")
			if key == "models_config.agent" {
				key = c.agentKey()
			}
			c.noteSource(key, CredentialSource{Kind: "env-override", Variable: v.name})
		}
	}
	return nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// setPath walks v by JSON key names and sets the leaf from text.
func setPath(v reflect.Value, path []string, text string) error {
	key := strings.Join(path, ".")
	for i, part := range path {
		switch v.Kind() {
		case reflect.Struct:
			f, ok := fieldByJSONName(v, part)
			if !ok {
				return fmt.Errorf("no config key %q", strings.Join(path[:i+1], "."))
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
			if err := setPath(elem, path[i+1:], text); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(part), elem)
			return nil
		default:
			return fmt.Errorf("no config key %q", strings.Join(path[:i+1], "."))
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
	if v.CanAddr() && v.Addr().Type().Implements(textUnmarshaler) {
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%s must be true or false, not %q", key, text)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return fmt.Errorf("%s must be a whole number, not %q", key, text)
		}
		v.SetInt(n)
	case reflect.Float64, reflect.Float32:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return fmt.Errorf("%s must be a number, not %q", key, text)
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("%s cannot be set from the environment; edit config.json", key)
	}
	return nil
}
