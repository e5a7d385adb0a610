package config

import (
	"github.com/joshbot/joshbot/joshbot/internal/jsonkeys"
	"reflect"
	"sort"
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
		if err := jsonkeys.SetPath(reflect.ValueOf(c).Elem(), path, v.value); err != nil {
			return errorf("environment variable %s: %w", v.name, err)
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
