package config

import (
	"os"
	"reflect"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// RegisterSecrets teaches the redactor (the one joshbot's log, stderr,
// incidents and health files go through) the exact value of every
// credential c holds or names: fields whose key ends like a credential's
// (api_key, token, api_keys, ...), the variables named by *_env keys
// (api_key_env, token_env, secret_env, exa_api_key_env, ...), and every
// credential-named variable of the environment. [Parse] calls it, and
// [LoadWith] again once credentials and environment overrides are
// resolved; the accessors that read a credential from the environment
// later (channel tokens, webhook secrets, the Exa key) register what they
// read too. Registering a value twice is harmless.
func (c *Config) RegisterSecrets() {
	redact.AddEnviron(os.Environ())
	registerSecrets(reflect.ValueOf(c).Elem(), "")
}

// credentialKey reports whether a JSON key names a credential value.
func credentialKey(k string) bool {
	k = strings.ToLower(k)
	for _, suf := range []string{"api_key", "api_keys", "apikey", "token", "tokens", "secret", "secrets", "password", "passwd", "passphrase"} {
		if strings.HasSuffix(k, suf) {
			return k != "max_tokens"
		}
	}
	return false
}

func registerSecrets(v reflect.Value, key string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			registerSecrets(v.Elem(), key)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				name = f.Name
			}
			registerSecrets(v.Field(i), name)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			registerSecrets(v.MapIndex(k), key)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			registerSecrets(v.Index(i), key)
		}
	case reflect.String:
		s := v.String()
		if s == "" {
			return
		}
		if base, ok := strings.CutSuffix(strings.ToLower(key), "_env"); ok && credentialKey(base) {
			redact.AddSecret(os.Getenv(s))
			return
		}
		if credentialKey(key) {
			redact.AddSecret(s)
		}
	}
}
