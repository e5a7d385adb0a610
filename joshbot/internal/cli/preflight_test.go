package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// writeRaw writes a config file from text with %URL% replaced. The
// learning step is turned off through the environment so each test's
// scripted replies are exactly those of its turns.
func writeRaw(t *testing.T, body, url string) string {
	t.Helper()
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__LEARNING", "off")
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(body, "%URL%", url)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const secret = "sk-live-do-not-print-0123456789"

func TestPreflightReadyReportsWithoutDialling(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_TEST_KEY", secret)
	srv := providertest.NewServer(t) // any request would fail the test
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL(), "/v1"), "http://")
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"groq":{"api_key_env":"JOSHBOT_TEST_KEY","max_retries":3,"timeout":"45s"}},
	  "models_config":{"agent":{"model":"groq/llama-3.3-70b-versatile","fallbacks":[
	    {"model":"custom/local-model","api_base":"http://admin:hunter2@`+host+`/v1"},
	    {"model":"poolside/laguna-m","api_key_env":"JOSHBOT_TEST_KEY"}]}}}`, srv.URL())

	r := runCLI(t, "", "--config", cfg, "--output", "json", "preflight")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var doc output.Preflight
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, r.stdout)
	}
	type row struct{ Role, Provider, Wire, Host, Source, Var string }
	var got []row
	for _, m := range doc.Models {
		got = append(got, row{m.Role, m.Provider, m.WireModel, m.APIHost, m.Credential.Source, m.Credential.Variable})
	}
	want := []row{
		{"primary", "groq", "llama-3.3-70b-versatile", "api.groq.com", "api_key_env", "JOSHBOT_TEST_KEY"},
		{"fallback", "custom", "local-model", host, "none", ""},
		{"fallback", "poolside", "poolside/laguna-m", "api.poolside.ai", "api_key_env", "JOSHBOT_TEST_KEY"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if doc.SchemaVersion != 1 || !doc.Ready || len(doc.Problems) != 0 || doc.Models[0].MaxRetries != 3 || doc.Models[0].Timeout != "45s" {
		t.Errorf("doc = %+v", doc)
	}
	for _, leak := range []string{secret, "hunter2", "admin"} {
		if strings.Contains(r.stdout+r.stderr, leak) {
			t.Errorf("output leaks %q:\n%s", leak, r.stdout)
		}
	}
	again := runCLI(t, "", "--config", cfg, "--output", "json", "preflight")
	if again.stdout != r.stdout {
		t.Error("two runs differ; the JSON document must be deterministic")
	}

	text := runCLI(t, "", "--config", cfg, "preflight")
	if text.code != 0 || !strings.Contains(text.stdout, "Ready: joshbot would start.") || !strings.Contains(text.stdout, "$JOSHBOT_TEST_KEY (api_key_env)") || strings.Contains(text.stdout, secret) {
		t.Errorf("text = %+v", text)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("preflight dialled the provider")
	}
}

func TestPreflightFailureClasses(t *testing.T) {
	clearProviderEnv(t)
	for _, tt := range []struct {
		name, body, code, key string
	}{
		{"no provider", `{"schema_version":1}`, "no-default-provider", "agents.defaults.provider"},
		{"unknown provider", `{"schema_version":1,"agents":{"defaults":{"provider":"nowhere","model":"m"}}}`, "provider-not-enabled", "agents.defaults.provider"},
		{"no key", `{"schema_version":1,"models_config":{"agent":{"model":"openai/gpt-4o"}}}`, "missing-credential", "providers.openai.api_key_env"},
		{"unset key variable", `{"schema_version":1,"providers":{"groq":{"api_key_env":"JOSHBOT_TEST_UNSET"}},"models_config":{"agent":{"model":"groq/x"}}}`, "missing-credential", "providers.groq.api_key_env"},
		{"no endpoint", `{"schema_version":1,"models_config":{"agent":{"model":"custom/x"}}}`, "unresolvable", "providers.custom.api_base"},
		{"bad fallback", `{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","fallbacks":[{"model":"azure/gpt-4o"}]}}}`, "unresolvable", "providers.azure.api_base"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeRaw(t, tt.body, "")
			r := runCLI(t, "", "--config", cfg, "--output", "json", "preflight")
			var doc output.Preflight
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("%v\n%+v", err, r)
			}
			if r.code != 1 || doc.Ready || len(doc.Problems) != 1 || doc.Problems[0].Code != tt.code || doc.Problems[0].Key != tt.key {
				t.Fatalf("exit %d, doc %+v", r.code, doc)
			}
			text := runCLI(t, "", "--config", cfg, "preflight")
			if text.code != 1 || !strings.Contains(text.stdout, "problem ["+tt.code+"]") || !strings.Contains(text.stdout, "Not ready") {
				t.Errorf("text = %+v", text)
			}
		})
	}
	r := runCLI(t, "", "--config", filepath.Join(t.TempDir(), "none.json"), "--output", "json", "preflight")
	if r.code != 1 || !strings.Contains(r.stdout, `"code": "no-default-provider"`) || !strings.Contains(r.stdout, "joshbot onboard") {
		t.Errorf("missing file: %+v", r)
	}
}

const profilesConfig = `{"schema_version":1,
  "agents":{"defaults":{"provider":"custom","model":"base-model"}},
  "providers":{"custom":{"api_base":"%URL%"}},
  "default_profile":"local",
  "profiles":{
    "local":{"model":"custom/local-model","description":"the scripted server"},
    "work":{"model":"groq/llama-3.3-70b-versatile","api_key_env":"JOSHBOT_TEST_WORK"},
    "lab":{"model":"ollama/qwen3","api_base":"http://ops:pw@lab.internal:11434/v1","disabled":true}
  }}`

func TestProfilesList(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_TEST_WORK", secret)
	srv := providertest.NewServer(t)
	cfg := writeRaw(t, profilesConfig, srv.URL())
	r := runCLI(t, "", "--config", cfg, "--output", "json", "profiles", "list")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var doc output.ProfileList
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Provider, Wire, Host, KeyEnv string
		KeySet, Enabled, Default           bool
	}
	var got []row
	for _, p := range doc.Profiles {
		got = append(got, row{p.Name, p.Provider, p.WireModel, p.APIHost, p.KeyEnv, p.KeySet, p.Enabled, p.Default})
	}
	srvHost := strings.TrimPrefix(strings.TrimSuffix(srv.URL(), "/v1"), "http://")
	want := []row{
		{"lab", "ollama", "qwen3", "lab.internal:11434", "", false, false, false},
		{"local", "custom", "local-model", srvHost, "", false, true, true},
		{"work", "groq", "llama-3.3-70b-versatile", "api.groq.com", "JOSHBOT_TEST_WORK", true, true, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("profiles (-want +got):\n%s", diff)
	}
	if doc.SchemaVersion != 1 || doc.DefaultProfile != "local" {
		t.Errorf("doc = %+v", doc)
	}
	for _, leak := range []string{secret, "pw@", "ops:"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("leaks %q", leak)
		}
	}
	text := runCLI(t, "", "--config", cfg, "profiles", "list")
	if text.code != 0 || !strings.Contains(text.stdout, "local (default)") || !strings.Contains(text.stdout, "$JOSHBOT_TEST_WORK (set)") || !strings.Contains(text.stdout, "disabled") {
		t.Errorf("text:\n%s", text.stdout)
	}

	// Unset, the variable is reported as such, and the profile as unusable.
	t.Setenv("JOSHBOT_TEST_WORK", "")
	r = runCLI(t, "", "--config", cfg, "profiles", "list")
	if !strings.Contains(r.stdout, "$JOSHBOT_TEST_WORK (unset)") || !strings.Contains(r.stdout, "missing-credential") {
		t.Errorf("text:\n%s", r.stdout)
	}
}

func TestProfileSelectsWhatIsDialled(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfg := writeRaw(t, profilesConfig, srv.URL())

	// default_profile applies without the flag.
	srv.Enqueue(providertest.Text("from local"))
	r := runCLI(t, "", "--config", cfg, "agent", "-m", "hi")
	if r.code != 0 || r.stdout != "from local\n" || srv.Requests()[0].Model != "local-model" {
		t.Fatalf("%+v, model %q", r, srv.Requests()[0].Model)
	}
	// --profile wins, and its failures are startup errors naming the fix.
	for _, tt := range []struct{ profile, want string }{
		{"work", "profiles.work.api_key_env names JOSHBOT_TEST_WORK"},
		{"lab", `profile "lab"`},
		{"nope", "lab, local, work"},
	} {
		r := runCLI(t, "", "--config", cfg, "agent", "--profile", tt.profile, "-m", "hi")
		if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("--profile %s: %+v", tt.profile, r)
		}
	}
	pf := runCLI(t, "", "--config", cfg, "--output", "json", "preflight", "--profile", "work")
	if pf.code != 1 || !strings.Contains(pf.stdout, `"code": "missing-credential"`) {
		t.Errorf("preflight --profile work: %+v", pf)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; a refused profile must not dial", n)
	}
}

func TestFallbackNoticeOnTheCommandLine(t *testing.T) {
	clearProviderEnv(t)
	prim, back := providertest.NewServer(t), providertest.NewServer(t)
	body := `{"schema_version":1,"agents":{"defaults":{"quiet_fallback":%Q}},
	  "providers":{"primary":{"api_base":"` + prim.URL() + `","max_retries":0},"backup":{"api_base":"` + back.URL() + `"}},
	  "models_config":{"agent":{"model":"primary/big","fallbacks":[{"model":"backup/small"}]}}}`
	for _, quiet := range []bool{false, true} {
		cfg := writeRaw(t, strings.Replace(body, "%Q", map[bool]string{false: "false", true: "true"}[quiet], 1), "")
		prim.Enqueue(providertest.Error(502, "bad gateway"))
		back.Enqueue(providertest.Text("small model here"))
		r := runCLI(t, "", "--config", cfg, "agent", "-m", "hi")
		want := "[fallback] primary (big) failed (HTTP 502: bad gateway); answered by backup (small).\nsmall model here\n"
		if quiet {
			want = "small model here\n"
		}
		if r.code != 0 || r.stdout != want {
			t.Errorf("quiet=%v: %+v", quiet, r)
		}
	}
}

func TestOutputFlag(t *testing.T) {
	clearProviderEnv(t)
	r := runCLI(t, "", "--output", "yaml", "version")
	if r.code != 1 || !strings.Contains(r.stderr, `--output "yaml": use text or json`) {
		t.Errorf("%+v", r)
	}
	r = runCLI(t, "", "--config", filepath.Join(t.TempDir(), "none.json"), "--output", "json", "profiles", "list")
	var doc output.ErrorDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 || doc.SchemaVersion != 1 || doc.Error.Code != 1 || !strings.Contains(doc.Error.Message, "joshbot onboard") {
		t.Errorf("error document: %+v (%v)", r, err)
	}
}

func TestWiringCarriesProviderConventions(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_TEST_AZ", "az-secret")
	srv := providertest.NewServer(t)
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"azure":{"api_base":"%URL%","api_key_env":"JOSHBOT_TEST_AZ",
	    "extra_body":{"chat_template_kwargs":{"enable_thinking":false}}}},
	  "models_config":{"agent":{"model":"azure/my-deployment","extra_body":{"top_k":4}}}}`, srv.URL())
	srv.Enqueue(providertest.Text("from azure"))
	r := runCLI(t, "", "--config", cfg, "agent", "-m", "hi")
	if r.code != 0 || r.stdout != "from azure\n" {
		t.Fatalf("%+v", r)
	}
	req := srv.Requests()[0]
	if !strings.HasPrefix(req.Path, "/v1/openai/deployments/my-deployment/chat/completions?api-version=") {
		t.Errorf("path = %s", req.Path)
	}
	if req.Header.Get("Api-Key") != "az-secret" || req.Header.Get("Authorization") != "" {
		t.Errorf("auth headers = %v", req.Header)
	}
	for field, want := range map[string]string{"chat_template_kwargs": `{"enable_thinking":false}`, "top_k": "4"} {
		if v, _ := req.Field(field); string(v) != want {
			t.Errorf("%s = %s, want %s", field, v, want)
		}
	}
}

func TestPreflightReportsShellConfinement(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	for _, tt := range []struct {
		name     string
		rep      sandbox.Report
		env      string
		confined bool
		ready    bool
	}{
		{"landlock, sandbox off", sandbox.Report{Platform: "linux", Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, "", false, true},
		{"landlock, sandbox on", sandbox.Report{Platform: "linux", Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, "workspace", true, true},
		{"no sandbox, asked for", sandbox.Report{Platform: "linux", Reason: "the kernel has no Landlock"}, "workspace", false, false},
	} {
		probe := func(a *app) { a.probe = func() sandbox.Report { return tt.rep } }
		t.Setenv("JOSHBOT_TOOLS__SHELL_SANDBOX", tt.env)
		r := runCLIWith(t, probe, "", "--config", cfgPath, "--output", "json", "preflight")
		var doc output.Preflight
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, r.stdout)
		}
		if doc.Shell == nil || doc.Shell.Confined != tt.confined || doc.Shell.LandlockABI != tt.rep.LandlockABI || doc.Ready != tt.ready {
			t.Errorf("%s: shell %+v ready %v, want confined %v ready %v", tt.name, doc.Shell, doc.Ready, tt.confined, tt.ready)
		}
	}
}
