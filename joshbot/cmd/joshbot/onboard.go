package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/workspace"
	"github.com/joshbot/joshbot/providers"
)

// onboardFlags are the choices a script can make instead of relying on
// detection.
type onboardFlags struct {
	provider  string
	model     string
	apiBase   string
	apiKeyEnv string
	ollamaURL string
	sandbox   string
	// apiKey is the key typed at the interactive onboarding; there is no
	// flag for it, so a key never lands in shell history.
	apiKey string
}

func (a *app) onboardCommand() *cobra.Command {
	var f onboardFlags
	cmd := &cobra.Command{
		Use:   "onboard",
		Short: "Write a config and a starter workspace",
		Long: "onboard writes config.json (mode 0600) and a workspace of starter identity files.\n" +
			"It never overwrites an existing config or file.\n\n" +
			"Without flags it picks the provider from the first API key found in the environment\n" +
			"(" + strings.Join(keyEnvs(), ", ") + "), else a local Ollama.\n" +
			"The config stores the variable's name, never the key itself.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onboard(cmd.Context(), &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "provider to use ("+strings.Join(knownNames(), ", ")+")")
	fl.StringVar(&f.model, "model", "", "model id (default: the provider's suggested model)")
	fl.StringVar(&f.apiBase, "api-base", "", "OpenAI-compatible base URL (required for --provider custom)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "environment variable holding the API key")
	fl.StringVar(&f.ollamaURL, "ollama-url", "http://localhost:11434", "where to look for a local Ollama")
	fl.StringVar(&f.sandbox, "shell-sandbox", "auto", "confine shell commands to the workspace: auto (when the system supports it), on or off")
	return cmd
}

func keyEnvs() []string {
	var out []string
	for _, s := range providers.Known() {
		if s.KeyEnv != "" && s.BaseURL != "" && s.DefaultModel != "" {
			out = append(out, s.KeyEnv)
		}
	}
	return out
}

func (a *app) onboard(ctx context.Context, f *onboardFlags) error {
	cfgPath, home, err := a.paths()
	if err != nil {
		return err
	}
	var cfg *config.Config
	interactive := false
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		// An existing config is the operator's: it is parsed only to find
		// the workspace, never rewritten, even when a credential it names
		// is missing from this shell.
		if cfg, err = config.Parse(cfgPath, data); err != nil {
			return fmt.Errorf("%w\n(onboard leaves an existing config alone; fix it or move it away)", err)
		}
		fmt.Fprintf(a.stdout, "Config already exists at %s; left unchanged.\n", tildePath(cfgPath))
		if hint := sandboxHint(cfg, a.probeSandbox()); hint != "" {
			fmt.Fprintln(a.stdout, hint)
		}
	case errors.Is(err, fs.ErrNotExist):
		if interactive = f.provider == "" && isTerminal(a.stdin) && isTerminal(a.stdout); interactive {
			if err := askOnboarding(bufio.NewReader(a.stdin), a.stdout, readSecretFrom(a.stdin.(*os.File)), f); err != nil {
				return err
			}
		}
		cfg, err = a.newConfig(ctx, f)
		if err != nil {
			return err
		}
		sandboxLine, err := applySandboxChoice(f.sandbox, cfg, a.probeSandbox())
		if err != nil {
			return err
		}
		if err := config.Save(cfgPath, cfg); err != nil {
			return err
		}
		d := cfg.Agents.Defaults
		fmt.Fprintf(a.stdout, "Wrote %s: provider %s, model %s", tildePath(cfgPath), d.Provider, d.Model)
		if env := cfg.Providers[d.Provider].APIKeyEnv; env != "" {
			fmt.Fprintf(a.stdout, ", key read from $%s", env)
		}
		fmt.Fprintln(a.stdout, ".")
		fmt.Fprintln(a.stdout, sandboxLine)
	default:
		return fmt.Errorf("read %s: %w", cfgPath, err)
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return err
	}
	created, err := workspace.Init(ws)
	if err != nil {
		return err
	}
	if len(created) > 0 {
		fmt.Fprintf(a.stdout, "Workspace %s: created %s.\n", tildePath(ws), strings.Join(created, ", "))
	} else {
		fmt.Fprintf(a.stdout, "Workspace %s is ready.\n", tildePath(ws))
	}
	fmt.Fprintln(a.stdout, `Next: joshbot agent -m "hello"   (or joshbot agent for a conversation)`)
	if interactive {
		// A person who answered questions gets preflight's verdict on
		// what they chose; scripts keep the output they parse today.
		fmt.Fprintln(a.stdout)
		return a.preflight()
	}
	return nil
}

// newConfig builds a config from the flags, or from what the environment
// offers.
func (a *app) newConfig(ctx context.Context, f *onboardFlags) (*config.Config, error) {
	cfg := config.Defaults()
	name := f.provider
	var spec providers.Spec
	if name == "" {
		s, model, err := detectProvider(ctx, f.ollamaURL)
		if err != nil {
			return nil, err
		}
		spec, name = s, s.Name
		if f.model == "" {
			f.model = model
		}
		if name == "ollama" && f.apiBase == "" {
			f.apiBase = strings.TrimRight(f.ollamaURL, "/") + "/v1"
		}
	} else {
		var ok bool
		spec, ok = providers.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("--provider %q is not known: use one of %s", name, strings.Join(knownNames(), ", "))
		}
	}
	p := config.Provider{APIBase: f.apiBase, APIKeyEnv: f.apiKeyEnv}
	if p.APIKeyEnv == "" && !spec.Keyless {
		p.APIKeyEnv = spec.KeyEnv
	}
	if f.apiKey != "" {
		// Typed at the prompt: kept in the 0600 config, as api_key.
		p.APIKey, p.APIKeyEnv = f.apiKey, ""
	}
	if p.APIKeyEnv != "" && os.Getenv(p.APIKeyEnv) == "" {
		return nil, fmt.Errorf("provider %s needs an API key: export %s=<your key> and run onboard again", name, p.APIKeyEnv)
	}
	if spec.BaseURL == "" && p.APIBase == "" {
		return nil, fmt.Errorf("--provider %s needs --api-base, the server's OpenAI-compatible URL (e.g. http://localhost:8080/v1)", name)
	}
	model := f.model
	if model == "" {
		model = spec.DefaultModel
	}
	if model == "" {
		return nil, fmt.Errorf("--provider %s has no default model: pass --model", name)
	}
	cfg.Agents.Defaults.Provider = name
	cfg.Agents.Defaults.Model = model
	cfg.Providers[name] = p
	if err := cfg.Usable(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// detectProvider picks the first provider whose key is in the environment,
// else a running Ollama, and says exactly what to set when there is none.
func detectProvider(ctx context.Context, ollamaURL string) (providers.Spec, string, error) {
	for _, s := range providers.Known() {
		// A provider without a default endpoint (azure) or model needs
		// flags; detection only picks what works as is.
		if s.KeyEnv != "" && s.BaseURL != "" && s.DefaultModel != "" && strings.TrimSpace(os.Getenv(s.KeyEnv)) != "" {
			return s, s.DefaultModel, nil
		}
	}
	if model, err := ollamaModel(ctx, ollamaURL); err == nil {
		s, _ := providers.Lookup("ollama")
		return s, model, nil
	} else if !errors.Is(err, errNoOllama) {
		return providers.Spec{}, "", err
	}
	return providers.Spec{}, "", fmt.Errorf("no LLM provider found: export one of %s (for example OPENROUTER_API_KEY=<key>), "+
		"or start Ollama on %s and pull a model, or pass --provider custom --api-base URL --model ID",
		strings.Join(keyEnvs(), ", "), ollamaURL)
}

var errNoOllama = errors.New("no ollama")

// ollamaModel asks a local Ollama which models it has and returns the first.
func ollamaModel(ctx context.Context, base string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/api/tags", nil)
	if err != nil {
		return "", fmt.Errorf("--ollama-url %q: %w", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", errNoOllama
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", errNoOllama
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&tags); err != nil {
		return "", errNoOllama
	}
	if len(tags.Models) == 0 {
		return "", fmt.Errorf("Ollama is running at %s but has no models: run `ollama pull llama3.2` and onboard again", base)
	}
	return tags.Models[0].Name, nil
}

func knownNames() []string {
	var out []string
	for _, s := range providers.Known() {
		out = append(out, s.Name)
	}
	return out
}
