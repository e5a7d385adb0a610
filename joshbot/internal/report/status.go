package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// ModelLine is the report line of one resolved model.
func ModelLine(m config.ResolvedModel) output.PreflightModel {
	role := "primary"
	if strings.Contains(m.Key, ".fallbacks[") {
		role = "fallback"
	}
	timeout := "default"
	if m.Timeout > 0 {
		timeout = m.Timeout.String()
	}
	return output.PreflightModel{
		Role: role, Key: m.Key, Provider: m.Provider, Model: m.Model, WireModel: m.WireModel,
		APIHost:    config.Host(m.BaseURL),
		Credential: output.Credential{Source: m.Credential.Kind, Variable: m.Credential.Variable},
		Timeout:    timeout, MaxRetries: m.MaxRetries,
	}
}

// TelegramStatus is the report of the Telegram channel's settings in cfg.
func TelegramStatus(cfg *config.Config) output.ChannelStatus {
	t := cfg.Channels.Telegram
	st := output.ChannelStatus{Name: "telegram", Enabled: t.Enabled, Token: "none", AllowFrom: len(t.AllowFrom)}
	switch {
	case t.TokenEnv != "":
		st.Token = "$" + t.TokenEnv + " (token_env)"
		st.TokenSet = os.Getenv(t.TokenEnv) != ""
	case t.Token != "":
		st.Token, st.TokenSet = "token in the config file", true
	}
	for _, f := range t.AllowFrom {
		if f == "*" {
			st.AllowFrom = -1
		}
	}
	return st
}

// StoredState fills in doc's sessions and memory sizes under home,
// opening nothing for writing: a missing store is an empty one.
func StoredState(doc *output.Status, cfg *config.Config, home string) error {
	sessDir := filepath.Join(home, "sessions")
	if _, err := os.Stat(sessDir); err == nil {
		store, err := memory.NewStore(sessDir)
		if err != nil {
			return err
		}
		infos, err := store.List()
		if err != nil {
			return err
		}
		doc.Sessions = len(infos)
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return err
	}
	d := cfg.Agents.Defaults
	doc.Memory = output.MemoryStatus{Workspace: config.Tilde(ws), LimitBytes: d.MemoryMaxBytes}
	if doc.Memory.LimitBytes == 0 {
		doc.Memory.LimitBytes = memory.DefaultMaxMemoryBytes
	}
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	doc.Memory.MemoryBytes = size(filepath.Join(ws, memory.MemoryFileName))
	doc.Memory.HistoryBytes = size(filepath.Join(ws, memory.HistoryFileName))
	facts, _ := filepath.Glob(filepath.Join(home, "memory", "*.md"))
	doc.Memory.SessionFacts = len(facts)
	return nil
}

// secretKey reports whether a dotted key holds a credential, by its last
// segment: these are never printed.
func secretKey(k string) bool {
	last := k[strings.LastIndexByte(k, '.')+1:]
	if i := strings.IndexByte(last, '['); i >= 0 {
		last = last[:i]
	}
	switch last {
	case "api_key", "token", "exa_api_key", "password", "secret", "bot_token":
		return true
	}
	// Environment blocks (MCP servers' env) carry tokens by design.
	return strings.Contains(k, ".env.")
}

// mustJSON is v as JSON; v must be a value that marshals.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("config does not encode: %v", err)) // a Config always encodes
	}
	return b
}

// flatten turns a JSON document into dotted keys and compact JSON values;
// arrays are values of their own.
func flatten(data []byte) map[string]string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return map[string]string{}
	}
	return flattenAny(v)
}

// flattenAny is flatten of an already decoded JSON value.
func flattenAny(v any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && (len(m) > 0 || prefix == "") {
			for k, c := range m {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, c)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix] = string(b)
	}
	if v != nil {
		walk("", v)
	}
	return out
}

// AuthEntries reports each provider cfg declares or used names (the
// credential each resolved model uses, by provider): where its
// credential comes from and whether it is set, never the credential.
func AuthEntries(cfg *config.Config, used map[string]output.Credential) []output.AuthEntry {
	names := map[string]bool{}
	for n := range cfg.Providers {
		names[n] = true
	}
	for n := range used {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	out := []output.AuthEntry{}
	for _, n := range sorted {
		e := output.AuthEntry{Provider: n}
		cred, inUse := used[n]
		e.Used = inUse
		p := cfg.Providers[n]
		switch {
		case inUse:
			e.Credential = cred
		case p.APIKeyEnv != "":
			e.Credential = output.Credential{Source: "api_key_env", Variable: p.APIKeyEnv}
		case p.APIKey != "":
			e.Credential = output.Credential{Source: "api_key"}
		default:
			e.Credential = output.Credential{Source: "none"}
			if s, ok := providers.Lookup(n); ok && s.KeyEnv != "" {
				e.Credential = output.Credential{Source: "api_key_env", Variable: s.KeyEnv}
			}
		}
		switch e.Credential.Source {
		case "api_key":
			e.Set = true
		case "env-override", "api_key_env":
			e.Set = os.Getenv(e.Credential.Variable) != ""
		}
		out = append(out, e)
	}
	return out
}
