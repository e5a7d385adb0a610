package providers_test

import (
	"testing"

	"github.com/joshbot/joshbot/providers"
)

func TestCapabilities(t *testing.T) {
	for _, tt := range []struct {
		model        string
		vision, docs bool
	}{
		{"gpt-4o", true, true},
		{"openai/gpt-4o-mini", true, true},
		{"openrouter/openai/gpt-4.1", true, true},
		{"o3-mini", false, false},
		{"anthropic/claude-sonnet-4-5", true, true},
		{"claude-3-haiku-20240307", true, false},
		{"google/gemini-2.5-pro", true, true},
		{"llava:13b", true, false},
		{"qwen2.5-vl-72b-instruct", true, false},
		{"meta-llama/llama-3.2-11b-vision-instruct", true, false},
		{"llama-3.3-70b-versatile", false, false},
		{"my-private-finetune", false, false},
		{"", false, false},
	} {
		if got := providers.SupportsVision(tt.model); got != tt.vision {
			t.Errorf("SupportsVision(%q) = %v", tt.model, got)
		}
		if got := providers.SupportsDocuments(tt.model); got != tt.docs {
			t.Errorf("SupportsDocuments(%q) = %v", tt.model, got)
		}
	}
}

func TestContextWindow(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  int
	}{
		{"gpt-4o-mini", 128_000},
		{"gpt-4", 8_192},
		{"gpt-4.1-mini", 1_047_576},
		{"anthropic/claude-sonnet-4-5", 200_000},
		{"groq/llama-3.3-70b-versatile", 131_072},
		{"gemini-1.5-pro-002", 2_097_152},
		{"something-nobody-listed", providers.DefaultContextWindow},
		{"", 128_000},
	} {
		if got := providers.ContextWindow(tt.model); got != tt.want {
			t.Errorf("ContextWindow(%q) = %d, want %d", tt.model, got, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"openrouter", "openai", "anthropic", "groq", "nvidia", "poolside", "azure", "github_copilot", "ollama", "litellm", "custom"}
	var got []string
	for _, s := range providers.Known() {
		got = append(got, s.Name)
		if s.BaseURL == "" && s.Name != "azure" && s.Name != "custom" {
			t.Errorf("%s has no default endpoint", s.Name)
		}
		if !s.Keyless && s.KeyEnv == "" {
			t.Errorf("%s needs a key but names no variable", s.Name)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("Known() = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Known() = %v, want %v", got, want)
		}
	}
	az, _ := providers.Lookup("azure")
	if az.AuthHeader != "api-key" || az.Style != providers.StyleAzure {
		t.Errorf("azure spec = %+v", az)
	}
	// Lookup hands out copies: changing one does not change the registry.
	cp, _ := providers.Lookup("github_copilot")
	cp.Headers["Editor-Version"] = "changed"
	if again, _ := providers.Lookup("github_copilot"); again.Headers["Editor-Version"] == "changed" {
		t.Error("the registry's headers were modified through a copy")
	}
}

func TestPrefixRules(t *testing.T) {
	for _, tt := range []struct {
		model, provider, wire string
		selects               bool
	}{
		{"groq/llama-3.3-70b-versatile", "groq", "llama-3.3-70b-versatile", true},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", true},
		{"openrouter/openai/gpt-4o", "openrouter", "openai/gpt-4o", true},
		{"poolside/laguna-m", "poolside", "poolside/laguna-m", true},
		{"Ollama/llama3.2", "ollama", "Ollama/llama3.2", true},
		{"meta-llama/llama-3-8b", "", "meta-llama/llama-3-8b", false},
		{"gpt-4o", "", "gpt-4o", false},
	} {
		s, ok := providers.ProviderForModel(tt.model)
		if ok != tt.selects || s.Name != tt.provider {
			t.Errorf("ProviderForModel(%q) = %q, %v", tt.model, s.Name, ok)
		}
		if ok {
			if got := providers.StripProviderPrefix(s.Name, tt.model); got != tt.wire {
				t.Errorf("StripProviderPrefix(%q, %q) = %q, want %q", s.Name, tt.model, got, tt.wire)
			}
		}
	}
	// A legacy config names the provider and keeps the model as written.
	if got := providers.StripProviderPrefix("openrouter", "openai/gpt-4o-mini"); got != "openai/gpt-4o-mini" {
		t.Errorf("got %q", got)
	}
}
