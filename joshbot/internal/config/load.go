package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/configmigrate"
	"github.com/joshbot/joshbot/joshbot/internal/jsonkeys"
	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/providers"
)

// ErrNotFound is returned by [Load] when there is no config file yet.
var ErrNotFound = errors.New("no config file")

// maxFileSize bounds how much of a config file is read; a real one is a few KiB.
const maxFileSize = 4 << 20

// LoadOptions are the per-run choices [LoadWith] applies.
type LoadOptions struct {
	// Profile selects a profile by name, as --profile does; empty means
	// default_profile, and with that empty too no profile is applied.
	Profile string
}

// Load reads the config at path, applies default_profile (if any),
// environment overrides and checks the result. Every error names what to
// change: the file position of a syntax error, the key of a bad value, the
// variable of a bad override. Temporary files an interrupted save left
// next to path more than a minute ago are removed.
func Load(path string) (*Config, error) { return LoadWith(path, nil) }

// LoadWith is [Load] with per-run options; nil means none. A selected
// profile replaces models_config.agent before credentials and environment
// overrides are applied, and a profile that cannot be resolved into a model
// to dial is refused here rather than at the first request. The profile is
// applied to the loaded value only: saving it would write the profile's
// setup into models_config.
func LoadWith(path string, opts *LoadOptions) (*Config, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	// A save killed between temp file and rename leaves it; nothing else would remove it.
	atomicfile.Sweep(filepath.Dir(path), time.Minute)
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkProfiles(); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	if err := cfg.applyProfile(opts.Profile); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	if err := cfg.resolveCredentials(); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	if err := ApplyEnv(cfg, os.Environ()); err != nil {
		return nil, err
	}
	// Before anything that can fail and print: every credential is now in cfg.
	cfg.RegisterSecrets()
	if err := cfg.Validate(); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	if cfg.profile != "" {
		if _, err := cfg.ResolveModelConfig(); err != nil {
			return nil, errorf("config %s: profile %q cannot be used: %w", path, cfg.profile, err)
		}
	}
	return cfg, nil
}

func readConfigFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errorf("%w at %s: run `joshbot onboard` to create one, or pass --config FILE", ErrNotFound, path)
		}
		return nil, errorf("read config: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, errorf("config %s is %d bytes, over the %d MiB limit: is it the right file?", path, len(data), maxFileSize>>20)
	}
	return data, nil
}

// Parse decodes data (the contents of the file named name) over
// [Defaults]. Unknown keys are refused so a typo never silently disables a
// setting. The credentials it holds are registered with the redactor
// ([Config.RegisterSecrets]).
func Parse(name string, data []byte) (*Config, error) {
	data, err := upgrade(name, data, SchemaVersion, configmigrate.Steps)
	if err != nil {
		return nil, err
	}
	// Member by member when it can (see jsonkeys.Decode); else encoding/json, which reports errors.
	cfg := Defaults()
	if !jsonkeys.Decode(data, cfg) {
		cfg = Defaults()
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(cfg); err != nil {
			return nil, describeJSONError(name, data, err)
		}
		if line, col := position(data, dec.InputOffset()); dec.More() {
			return nil, errorf("config %s:%d:%d: unexpected data after the closing brace", name, line, col)
		}
	}
	if cfg.Providers == nil {
		cfg.Providers = map[string]Provider{}
	}
	// Every command that reads the file (status, sessions, onboard) then
	// redacts what it holds, not only those that load it whole.
	cfg.RegisterSecrets()
	return cfg, nil
}

// describeJSONError turns a decoding error into one that names the file,
// line and column, or the key.
func describeJSONError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the offending byte as read.
		line, col := position(data, max(syn.Offset-1, 0))
		return errorf("config %s:%d:%d: invalid JSON: %s", name, line, col, syn.Error())
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return errorf("config %s:%d:%d: %s must be %s, not a JSON %s", name, line, col, typ.Field, article(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		// The decoder read to the end inside a value: the file was cut
		// short (a crash mid-write, a full disk), and its end is where.
		line, col := position(data, int64(len(data)))
		return errorf("config %s:%d:%d: invalid JSON: the file is cut short here, inside an object or a string: restore the rest of it, or run `joshbot onboard`", name, line, col)
	case errors.Is(err, io.EOF):
		return errorf("config %s: the file is empty or cut short: restore it or run `joshbot onboard`", name)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if path, suggest, found := unknownKey(data); found {
			if suggest != "" {
				return ordinary(errorf("config %s: unknown key %q: did you mean %q? (check its spelling and level)", name, path, suggest))
			}
			return ordinary(errorf("config %s: unknown key %q: check its spelling and level", name, path))
		}
		return ordinary(errorf("config %s: unknown key %s: check its spelling and level", name, f))
	}
	// Errors from a field's own decoder (a bad duration) carry no offset;
	// the message names the value.
	return errorf("config %s: %s", name, strings.TrimPrefix(msg, "json: "))
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// resolveCredentials reads api_key_env variables. It runs before
// environment overrides so that JOSHBOT_PROVIDERS__<NAME>__API_KEY wins over
// api_key_env, which wins over api_key.
func (c *Config) resolveCredentials() error {
	for _, name := range c.providerNames() {
		p := c.Providers[name]
		if p.APIKeyEnv == "" {
			continue
		}
		if p.APIKey != "" {
			return errorf("providers.%s sets both api_key and api_key_env: keep one (api_key_env keeps the secret out of the file)", name)
		}
		if overridden(os.Environ(), "providers", name, "api_key") {
			// ApplyEnv sets the key next: the override replaces the
			// api_key_env reference, so its variable need not be set.
			continue
		}
		v, err := lookupKey("providers."+name, p.APIKeyEnv)
		if err != nil {
			return err
		}
		p.APIKey = v
		c.Providers[name] = p
	}
	a := &c.ModelsConfig.Agent
	if !overridden(os.Environ(), "models_config", "agent", "api_key") {
		if err := resolveEntryKey(c.agentKey(), a); err != nil {
			return err
		}
	}
	for i := range a.Fallbacks {
		if err := resolveEntryKey(fmt.Sprintf("%s.fallbacks[%d]", c.agentKey(), i), &a.Fallbacks[i]); err != nil {
			return err
		}
	}
	return nil
}

// overridden reports whether environ holds a non-blank environment
// override (see [ApplyEnv]) of the key path.
func overridden(environ []string, path ...string) bool {
	want := strings.Join(path, "__")
	for _, e := range environ {
		name, value, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(value) == "" || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		if strings.EqualFold(strings.TrimPrefix(name, EnvPrefix), want) {
			return true
		}
	}
	return false
}

// resolveEntryKey reads the api_key_env of a model entry at key.
func resolveEntryKey(key string, e *ModelEntry) error {
	if e.APIKeyEnv == "" {
		return nil
	}
	if e.APIKey != "" {
		return errorf("%s sets both api_key and api_key_env: keep one (api_key_env keeps the secret out of the file)", key)
	}
	v, err := lookupKey(key, e.APIKeyEnv)
	if err != nil {
		return err
	}
	e.APIKey = v
	return nil
}

// lookupKey reads the variable that api_key_env at key names. An unset or
// blank variable is an error naming it: silently going keyless would
// resurface as a 401 mid-conversation and read as a revoked key.
func lookupKey(key, env string) (string, error) {
	v, ok := os.LookupEnv(env)
	if !ok || strings.TrimSpace(v) == "" {
		return "", &ResolveError{CodeMissingCredential, key + ".api_key_env", errorf("%s.api_key_env names %s, which is not set: export %s, or change %s.api_key_env", key, env, env, key)}
	}
	return strings.TrimSpace(v), nil
}

// Usable reports whether c, as it would be saved, loads and resolves to a
// provider the agent can dial, without changing c.
func (c *Config) Usable() error {
	check := *c
	check.Providers = maps.Clone(c.Providers)
	check.ModelsConfig.Agent.Fallbacks = slices.Clone(c.ModelsConfig.Agent.Fallbacks)
	if err := check.resolveCredentials(); err != nil {
		return err
	}
	if err := check.Validate(); err != nil {
		return err
	}
	_, err := check.Endpoint()
	return err
}

// Validate refuses values that would only fail later, naming the key.
func (c *Config) Validate() error {
	if c.SchemaVersion > SchemaVersion {
		return errorf("schema_version %d was written by a newer joshbot (this one reads up to %d): upgrade joshbot", c.SchemaVersion, SchemaVersion)
	}
	if c.SchemaVersion < 1 {
		return errorf("schema_version is missing or %d: set \"schema_version\": %d", c.SchemaVersion, SchemaVersion)
	}
	d := &c.Agents.Defaults
	if err := checkDuration("agents.defaults.timeout", d.Timeout); err != nil {
		return err
	}
	if d.MaxToolIterations < 0 {
		return ordinary(errorf("agents.defaults.max_tool_iterations is %d: use a positive number, or 0 for the default of 50", d.MaxToolIterations))
	}
	if d.MaxAnswerBytes != 0 && (d.MaxAnswerBytes < MinAnswerBytes || d.MaxAnswerBytes > MaxAnswerBytes) {
		return ordinary(errorf("agents.defaults.max_answer_bytes is %d: use %d to %d, or 0 for the default of %d (1 MiB)", d.MaxAnswerBytes, MinAnswerBytes, MaxAnswerBytes, DefaultMaxAnswerBytes))
	}
	if d.MaxTokens < 0 {
		return ordinary(errorf("agents.defaults.max_tokens is %d: use a positive number, or 0 for no cap", d.MaxTokens))
	}
	if t := d.Temperature; t != nil && (*t < 0 || *t > 2) {
		return ordinary(errorf("agents.defaults.temperature is %g: use a value between 0 and 2, or remove the key", *t))
	}
	if err := d.validateMemory(); err != nil {
		return ordinary(err)
	}
	if err := c.validateOwner(); err != nil {
		return ordinary(err)
	}
	for _, name := range c.providerNames() {
		p := c.Providers[name]
		if err := checkDuration("providers."+name+".timeout", p.Timeout); err != nil {
			return err
		}
		if err := checkRetries("providers."+name+".max_retries", p.MaxRetries); err != nil {
			return err
		}
	}
	entries := map[string]*ModelEntry{}
	if c.ModelCentric() || c.ModelsConfig.Agent.Fallbacks != nil {
		a := &c.ModelsConfig.Agent
		entries[c.agentKey()] = a
		for i := range a.Fallbacks {
			entries[fmt.Sprintf("%s.fallbacks[%d]", c.agentKey(), i)] = &a.Fallbacks[i]
		}
	}
	for _, name := range c.ProfileNames() {
		p := c.Profiles[name]
		e := p.entry()
		entries["profiles."+name] = &e
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := entries[k]
		if err := checkDuration(k+".timeout", e.Timeout); err != nil {
			return err
		}
		if err := checkRetries(k+".max_retries", e.MaxRetries); err != nil {
			return err
		}
	}
	if err := c.Tools.validate(); err != nil {
		return err
	}
	if err := c.validateMCP(); err != nil {
		return err
	}
	if err := c.Tuning.validate(); err != nil {
		return err
	}
	if err := c.Channels.validate(); err != nil {
		return err
	}
	if err := c.validateWebhooks(); err != nil {
		return err
	}
	return c.validateAgentExtras()
}

// checkRetries keeps a retry budget within 0 to providers.MaxRetriesLimit.
func checkRetries(key string, n *int) error {
	if n != nil && (*n < 0 || *n > providers.MaxRetriesLimit) {
		return ordinary(errorf("%s is %d: use 0 (fail over at once) to %d, or remove it for the default of %d", key, *n, providers.MaxRetriesLimit, providers.DefaultMaxRetries))
	}
	return nil
}

// checkDuration refuses a nonzero duration under a second: it is certainly a
// unit mistake, and left alone it fails the first request and blames the
// network instead of the config.
func checkDuration(key string, d Duration) error {
	if d != 0 && d.Std() < time.Second {
		return errorf("%s is %s, under one second, which is surely a unit mistake: write it like \"90s\" or \"10m\"", key, d.Std())
	}
	return nil
}

func (c *Config) providerNames() []string {
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// article is noun with its indefinite article: "an int", "a string".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
