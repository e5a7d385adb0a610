package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

func TestStatusReportsShellConfinement(t *testing.T) {
	clearProviderEnv(t)
	cfgPath := scriptedConfig(t, providertest.NewServer(t))
	landlock := func(a *app) {
		a.probe = func() sandbox.Report {
			return sandbox.Report{Platform: "linux", Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}
		}
	}
	t.Setenv("JOSHBOT_TOOLS__SHELL_SANDBOX", "workspace")
	r := runCLIWith(t, landlock, "", "--config", cfgPath, "status")
	if r.code != 0 || !strings.Contains(r.stdout, "Shell: confined") || !strings.Contains(r.stdout, "Landlock ABI 7") {
		t.Fatalf("%+v", r)
	}
}

func TestCopilotLoginTokenIsExchangedBeforeUse(t *testing.T) {
	clearProviderEnv(t)
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token gho_fromdeviceflow" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"token":"tid=copilot-session","expires_at":%d}`, time.Now().Add(time.Hour).Unix())
	}))
	defer gh.Close()
	fakeGitHub := func(a *app) {
		a.runtimeSeams = func(o *runtime.Options) { o.CopilotTokenURL = gh.URL }
	}

	srv := providertest.NewServer(t)
	srv.RequireKey("tid=copilot-session")
	srv.Enqueue(providertest.Text("hello from copilot"))
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Provider = "github_copilot"
	cfg.Providers["github_copilot"] = config.Provider{APIBase: srv.URL(), APIKey: "gho_fromdeviceflow"}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	r := runCLIWith(t, fakeGitHub, "", "--config", cfgPath, "agent", "-m", "hi")
	if r.code != 0 || r.stdout != "hello from copilot\n" {
		t.Fatalf("%+v", r)
	}
}

func TestGatewayEnabledTelegramNeedsAToken(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	p := scriptedConfig(t, srv)
	t.Setenv("JOSHBOT_CHANNELS__TELEGRAM__ENABLED", "true")
	r := runCLI(t, "", "--config", p, "gateway")
	if r.code != 1 || !strings.Contains(r.stderr, "channels.telegram.token_env") {
		t.Fatalf("%+v", r)
	}
}
