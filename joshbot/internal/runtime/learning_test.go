package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// agents.defaults.learning_model sends the learning step to its own
// provider and model; the turns stay on the agent's model.
func TestLearningModelIsWired(t *testing.T) {
	for _, s := range providers.Known() {
		if s.KeyEnv != "" {
			t.Setenv(s.KeyEnv, "")
		}
	}
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "JOSHBOT_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	big, small := providertest.NewServer(t), providertest.NewServer(t)
	big.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text("Noted.") })
	small.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Text(`{"facts": ["The user drinks tea"]}`)
	})
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "big-model"
	cfg.Agents.Defaults.LearningModel = "small/tiny-model"
	cfg.Providers["custom"] = config.Provider{APIBase: big.URL()}
	cfg.Providers["small"] = config.Provider{APIBase: small.URL()}
	p := filepath.Join(t.TempDir(), "config.json")
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.Load(context.Background(), &runtime.Options{ConfigPath: p, Home: filepath.Dir(p)})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.Agent.Process(context.Background(), agent.Request{SessionKey: "cli:tea", Text: "I drink tea every morning"}); err != nil {
		t.Fatal(err)
	}
	rt.Agent.Wait()
	if n := len(big.Requests()); n != 1 {
		t.Errorf("the agent's model got %d requests, want the turn's only", n)
	}
	reqs := small.Requests()
	if len(reqs) != 1 || reqs[0].Model != "tiny-model" || !strings.Contains(reqs[0].Messages[1].Content, "I drink tea") {
		t.Fatalf("learning model requests %+v", reqs)
	}
}
