package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

func (a *app) statusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "What joshbot runs with and what it has stored: model, channels, sessions, memory, MCP servers",
		Long: "status reads the config and the stored state and dials nothing: the model chain and\n" +
			"where each credential comes from, the channels, the number of sessions, the size of\n" +
			"long-term memory and the declared MCP servers. --output json gives one document.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.status(cmd) },
	}
	a.addProfileFlag(cmd)
	return cmd
}

// runtimeState fills in the workspace, shell confinement, turn timeout,
// cron jobs, skills and the last day's incidents. It only looks: a status
// check must not create the state it reports on.
func (a *app) runtimeState(ctx context.Context, doc *output.Status, cfg *config.Config, home string) {
	now := time.Now()
	if a.now != nil {
		now = a.now()
	}
	if ws, err := cfg.WorkspaceDir(home); err == nil {
		doc.Workspace = tildePath(ws)
	}
	_, doc.Shell = shellConfinement(cfg)
	d := cfg.Agents.Defaults
	timeout := d.Timeout.Std()
	if timeout <= 0 {
		timeout = agent.DefaultTimeout
	}
	doc.TurnTimeout = timeout.String()
	doc.Incidents = map[string]int{}
	if inc, err := a.openIncidents(home); err == nil {
		if d.HealTimeouts == "bump" {
			if h := agent.HealedTimeout(timeout, inc, now); h != timeout {
				doc.HealedTimeout = h.String()
			}
		}
		for k, n := range inc.CountSince(now.Add(-24 * time.Hour)) {
			if n > 0 {
				doc.Incidents[k] = n
			}
		}
	} else {
		doc.IncidentsError = err.Error()
	}
	if store, err := cron.OpenStore(filepath.Join(home, cronFile)); err == nil {
		if jobs, _ := store.List(ctx, ""); len(jobs) > 0 {
			doc.ScheduledJobs = len(jobs)
		}
	}
	if lib, err := a.skillLibrary(); err == nil {
		if all, err := lib.List(); err == nil {
			for _, s := range all {
				if s.Trusted {
					doc.SkillsUsable++
				} else {
					doc.SkillsPending++
				}
			}
		}
	}
}

func (a *app) status(cmd *cobra.Command) error {
	cfgPath, home, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	doc := &output.Status{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       a.profile,
		Models:        []output.PreflightModel{},
		Channels:      []output.ChannelStatus{},
		Providers:     []output.ProviderHealth{},
		MCPServers:    []output.MCPServerStatus{},
		Problems:      []output.Problem{},
	}
	// The strict load says whether joshbot would start; the stored state
	// is read even when it would not, from the file as written.
	cfg, err := a.loadConfig(cfgPath)
	if err != nil {
		doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
		if cfg, err = config.Inspect(cfgPath); err != nil {
			if !errors.Is(err, config.ErrNotFound) {
				return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
			}
			cfg = config.Defaults()
		}
	}
	doc.Profile = cfg.Profile()
	mc, problems := cfg.ResolveAll()
	if mc != nil {
		for _, m := range mc.Models {
			doc.Models = append(doc.Models, modelReport(m))
		}
	}
	if len(doc.Problems) == 0 {
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
	}
	doc.Channels = append(doc.Channels, telegramStatus(cfg))
	for _, name := range cfg.MCP.Names() {
		s := cfg.MCP.Servers[name]
		st := output.MCPServerStatus{Name: name, Enabled: s.IsEnabled(), Transport: "stdio", Target: s.Command}
		if s.URL != "" {
			st.Transport, st.Target = "http", config.Host(s.URL)
		}
		doc.MCPServers = append(doc.MCPServers, st)
	}
	if err := storedState(doc, cfg, home); err != nil {
		return a.fail(err)
	}
	a.runtimeState(cmd.Context(), doc, cfg, home)
	if hd, err := readHealth(home); err == nil {
		doc.Providers = hd.Providers
		for _, run := range hd.MCPServers {
			for i := range doc.MCPServers {
				if m := &doc.MCPServers[i]; m.Name == run.Name {
					m.State, m.Restarts, m.RestartBudget, m.LastError, m.RetryAt = run.State, run.Restarts, run.RestartBudget, run.LastError, run.RetryAt
				}
			}
		}
	} else {
		doc.Problems = append(doc.Problems, output.Problem{Code: config.CodeUnresolvable, Key: healthFile, Message: err.Error()})
	}
	doc.Ready = len(doc.Problems) == 0
	return output.Write(a.stdout, a.format, doc)
}

// modelReport is the report line of one resolved model.
func modelReport(m config.ResolvedModel) output.PreflightModel {
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

func telegramStatus(cfg *config.Config) output.ChannelStatus {
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

// storedState fills in the sessions and memory sizes, opening nothing for
// writing: a missing store is an empty one.
func storedState(doc *output.Status, cfg *config.Config, home string) error {
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
	doc.Memory = output.MemoryStatus{Workspace: tildePath(ws), LimitBytes: d.MemoryMaxBytes}
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

func (a *app) configureCommand() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "configure",
		Short: "Show the effective settings (--list): each key, its value and where it comes from",
		Long: "configure --list prints every setting by its dotted key with the value joshbot uses and\n" +
			"its source: default, file or env (a JOSHBOT_ override). Credentials show as (set) or\n" +
			"(unset), never their value.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !list {
				return errors.New("configure: pass --list to see the settings (edit config.json, or run `joshbot onboard`, to change them)")
			}
			return a.configureList()
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list every setting with its value and source")
	return cmd
}

func (a *app) configureList() error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	file := config.Defaults()
	var raw map[string]any
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		if file, err = config.Parse(cfgPath, data); err != nil {
			return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return a.fail(err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return a.fail(fmt.Errorf("read config: %w", err))
	}
	eff, err := config.Parse(cfgPath, mustJSON(file))
	if err != nil {
		return a.fail(err)
	}
	if err := config.ApplyEnv(eff, os.Environ()); err != nil {
		return a.fail(err)
	}
	fromFile, effective, inFile := flatten(mustJSON(file)), flatten(mustJSON(eff)), flattenAny(raw)
	keys := make([]string, 0, len(effective))
	for k := range effective {
		keys = append(keys, k)
	}
	for k := range fromFile {
		if _, ok := effective[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	doc := &output.ConfigList{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Settings: []output.ConfigEntry{}}
	for _, k := range keys {
		v, ok := effective[k]
		if !ok {
			continue
		}
		src := "default"
		if _, ok := inFile[k]; ok {
			src = "file"
		}
		if fromFile[k] != v {
			src = "env"
		}
		if secretKey(k) {
			if v == `""` || v == "null" {
				v = "(unset)"
			} else {
				v = "(set)"
			}
		}
		doc.Settings = append(doc.Settings, output.ConfigEntry{Key: k, Value: v, Source: src})
	}
	return output.Write(a.stdout, a.format, doc)
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

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Credentials: where each provider's key comes from",
		Args:  cobra.NoArgs,
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "For each configured provider: whether the model chain uses it, where its key comes from, whether it is present",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.authStatus() },
	}
	a.addProfileFlag(status)
	cmd.AddCommand(status, a.authLoginCommand())
	return cmd
}

func (a *app) authStatus() error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
	}
	doc := &output.AuthStatus{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Providers: []output.AuthEntry{}, Problems: []output.Problem{}}
	used := map[string]output.Credential{}
	if _, lerr := a.loadConfig(cfgPath); lerr != nil {
		doc.Problems = append(doc.Problems, problemOf(lerr, cfgPath))
	}
	mc, problems := cfg.ResolveAll()
	if mc != nil {
		for _, m := range mc.Models {
			used[m.Provider] = output.Credential{Source: m.Credential.Kind, Variable: m.Credential.Variable}
		}
	}
	if len(doc.Problems) == 0 {
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
	}
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
		doc.Providers = append(doc.Providers, e)
	}
	return output.Write(a.stdout, a.format, doc)
}
