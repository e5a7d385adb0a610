package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/configedit"
)

// configAccess gives the config tool a credential-free view of the config
// file and changes to the allowlisted keys only.
type configAccess struct {
	path string
}

func (c *configAccess) View(context.Context) (any, error) {
	cfg, err := config.Load(c.path)
	if err != nil {
		return nil, err
	}
	return configedit.SafeView(cfg), nil
}

func (c *configAccess) Set(_ context.Context, key, value string) (string, error) {
	v, err := configedit.ParseSafe(key, value)
	if err != nil {
		return "", err
	}
	old := "(unset)"
	if cfg, err := config.Load(c.path); err == nil {
		if b, err := json.Marshal(configedit.SafeView(cfg)); err == nil {
			old = lookupDotted(b, key)
		}
	}
	if err := configedit.SetFileKey(c.path, key, v); err != nil {
		return "", err
	}
	nb, _ := json.Marshal(v)
	return fmt.Sprintf("%s: %s → %s in %s (takes effect at the next start)", key, old, nb, config.Tilde(c.path)), nil
}

// lookupDotted returns the JSON text at a dotted key of doc, or "(unset)".
func lookupDotted(doc []byte, key string) string {
	var cur any
	if json.Unmarshal(doc, &cur) != nil {
		return "(unset)"
	}
	for _, p := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return "(unset)"
		}
		if cur, ok = m[p]; !ok {
			return "(unset)"
		}
	}
	b, _ := json.Marshal(cur)
	return string(b)
}
