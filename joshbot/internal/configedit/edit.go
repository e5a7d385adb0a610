package configedit

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// SetFileKey sets one dotted key (such as "agents.defaults.model") in the
// config file at path to value and writes the file atomically. It edits
// the file's own JSON rather than saving a loaded Config, because a loaded
// Config carries environment overrides and credentials resolved from
// api_key_env that must never be written to disk. The edited file must
// still parse and validate, or nothing is written.
func SetFileKey(path, key string, value any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errorf("read config: %w", err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return errorf("config %s does not parse: %w", path, err)
	}
	parts := strings.Split(key, ".")
	m := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if m[p] != nil {
				return errorf("config %s: %s is not an object", path, p)
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if value == nil {
		delete(m, parts[len(parts)-1])
	} else {
		m[parts[len(parts)-1]] = value
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	out = append(out, '\n')
	cfg, err := config.Parse(path, out)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return errorf("%s not changed: %w", key, err)
	}
	return config.WriteFileAtomic(path, out)
}

// SafeKey is one setting the model may change through the config tool.
type SafeKey struct {
	// Key is the dotted config key.
	Key string
	// Help says what values are accepted.
	Help string
	// rule turns the model's text into the JSON value to store.
	rule rule
}

// SafeKeys are the only settings the config tool can change: limits and
// presentation. Provider, model, workspace, credentials, allowlists and
// anything that widens what the agent can reach are deliberately absent.
var SafeKeys = []SafeKey{
	{"agents.defaults.max_tool_iterations", "model calls per turn, 1 to 200", rule{kind: intRule, lo: 1, hi: 200}},
	{"agents.defaults.max_tokens", "answer length cap in tokens, 0 for none, up to 200000", rule{kind: intRule, lo: 0, hi: 200000}},
	{"agents.defaults.temperature", "sampling temperature, 0 to 2", rule{kind: floatRule, lo: 0, hi: 2}},
	{"agents.defaults.streaming", "show answers while generated: true or false", rule{kind: boolRule}},
	{"agents.defaults.timeout", "turn time budget, 10s to 1h, e.g. 3m", rule{kind: durationRule, lo: float64(10 * time.Second), hi: float64(time.Hour)}},
	{"agents.defaults.repeat_limit", "identical tool calls in a row before refusing, 1 to 10", rule{kind: intRule, lo: 1, hi: 10}},
	{"agents.defaults.heal_timeouts", "\"bump\" or \"off\"", rule{kind: oneOfRule, vals: []string{"bump", "off"}}},
}

// ProfileKeyPrefix starts the one kind of key beside [SafeKeys] that the
// config tools may set: agents.profiles.<name>, whose value is a whole
// subagent profile as a JSON object, or null to delete it. A profile only
// narrows what a delegated run may use; the tool that writes one asks a
// human first.
const ProfileKeyPrefix = "agents.profiles."

// ParseSafe checks key against [SafeKeys] and value against its rule. For
// agents.profiles.<name> the value is a JSON [AgentProfile] with no unknown
// field, or null (returned as nil: [SetFileKey] then deletes the key).
func ParseSafe(key, value string) (any, error) {
	if name, ok := strings.CutPrefix(key, ProfileKeyPrefix); ok {
		return parseProfile(name, value)
	}
	for _, k := range SafeKeys {
		if k.Key == key {
			v, err := k.rule.parse(strings.TrimSpace(value))
			if err != nil {
				return nil, errorf("%s: %v (%s)", key, err, k.Help)
			}
			return v, nil
		}
	}
	names := make([]string, len(SafeKeys))
	for i, k := range SafeKeys {
		names[i] = k.Key
	}
	names = append(names, ProfileKeyPrefix+"<name>")
	sort.Strings(names)
	return nil, errorf("%s cannot be changed from a conversation; changeable keys: %s", key, strings.Join(names, ", "))
}

// parseProfile reads one agents.profiles entry for [ParseSafe]; the file's
// validation checks the rest (the name's form, the model id, bounds).
func parseProfile(name, value string) (any, error) {
	if name == "" || strings.Contains(name, ".") {
		return nil, errorf("agents.profiles key %q: use a short name without dots, spaces or slashes", name)
	}
	value = strings.TrimSpace(value)
	if value == "null" {
		return nil, nil
	}
	var p config.AgentProfile
	dec := json.NewDecoder(strings.NewReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, errorf("%s%s: %v (a JSON object with description, model, tools, prompt and max_iterations, or null to delete)", ProfileKeyPrefix, name, err)
	}
	var v map[string]any
	b, _ := json.Marshal(p)
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// ruleKind says which check a [rule] makes.
type ruleKind int

const (
	intRule      ruleKind = iota // a whole number from lo to hi
	floatRule                    // a number from lo to hi
	boolRule                     // true or false
	durationRule                 // a duration from lo to hi nanoseconds, stored as its String
	oneOfRule                    // one of vals
)

// rule is the check a [SafeKey]'s value must pass. It is plain data rather
// than a closure so that SafeKeys is laid out statically and the package
// has no init code.
type rule struct {
	kind   ruleKind
	lo, hi float64
	vals   []string
}

// parse turns the model's text into the JSON value to store.
func (r rule) parse(s string) (any, error) {
	switch r.kind {
	case intRule:
		n, err := strconv.Atoi(s)
		if err != nil || float64(n) < r.lo || float64(n) > r.hi {
			return nil, errorf("%q is not a whole number from %d to %d", s, int(r.lo), int(r.hi))
		}
		return n, nil
	case floatRule:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < r.lo || f > r.hi {
			return nil, errorf("%q is not a number from %g to %g", s, r.lo, r.hi)
		}
		return f, nil
	case boolRule:
		return parseBool(s)
	case durationRule:
		lo, hi := time.Duration(r.lo), time.Duration(r.hi)
		d, err := time.ParseDuration(s)
		if err != nil || d < lo || d > hi {
			return nil, errorf("%q is not a duration from %s to %s", s, lo, hi)
		}
		return d.String(), nil
	default:
		for _, v := range r.vals {
			if s == v {
				return s, nil
			}
		}
		return nil, errorf("%q is not one of %s", s, strings.Join(r.vals, ", "))
	}
}

func parseBool(s string) (any, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return nil, errorf("%q is not true or false", s)
	}
	return b, nil
}

// View is the configuration as the model may read it. It is a separate
// type with no credential field at all, so a credential cannot reach the
// model through it whatever the config holds.
type View struct {
	// Agents is the agent settings, which hold nothing secret.
	Agents ViewAgents `json:"agents"`
	// Providers says how each provider is reached.
	Providers map[string]ViewProvider `json:"providers"`
}

// ViewAgents mirrors [config.Agents] without anything secret.
type ViewAgents struct {
	// Defaults is agents.defaults.
	Defaults config.AgentDefaults `json:"defaults"`
	// Profiles is agents.profiles.
	Profiles map[string]config.AgentProfile `json:"profiles,omitempty"`
}

// ViewProvider says how a provider is reached, never with what.
type ViewProvider struct {
	// Host is the API base URL's scheme, host and path, without userinfo
	// or query, which can carry credentials.
	Host string `json:"api_base,omitempty"`
	// CredentialSet reports whether a credential is configured.
	CredentialSet bool `json:"credential_set"`
	// CredentialEnv names the variable holding it, if any.
	CredentialEnv string `json:"api_key_env,omitempty"`
	// Timeout bounds one request.
	Timeout config.Duration `json:"timeout,omitzero"`
}

// SafeView builds the [View] of c.
func SafeView(c *config.Config) View {
	v := View{Agents: ViewAgents{Defaults: c.Agents.Defaults, Profiles: c.Agents.Profiles}, Providers: map[string]ViewProvider{}}
	for name, p := range c.Providers {
		vp := ViewProvider{CredentialSet: p.APIKey != "", CredentialEnv: p.APIKeyEnv, Timeout: p.Timeout}
		if p.APIBase != "" {
			if u, err := url.Parse(p.APIBase); err == nil && u.Host != "" {
				vp.Host = u.Scheme + "://" + u.Host + u.Path
			} else {
				vp.Host = "(unparseable)"
			}
		}
		v.Providers[name] = vp
	}
	return v
}
