package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestModelCommandPersistsAcrossRunsPerSession(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-s", "cli:a", "-m", "/model picked-model"); r.code != 0 || !strings.Contains(r.stdout, "picked-model") {
		t.Fatalf("%+v", r)
	}
	srv.Enqueue(providertest.Text("one"), providertest.Text("two"))
	runCLI(t, "", "--config", cfgPath, "agent", "-s", "cli:a", "-m", "hi")
	runCLI(t, "", "--config", cfgPath, "agent", "-s", "cli:b", "-m", "hi")
	reqs := srv.Requests()
	if reqs[0].Model != "picked-model" || reqs[1].Model != "scripted-model" {
		t.Fatalf("models: %q %q", reqs[0].Model, reqs[1].Model)
	}

	// --global rewrites the config default and nothing else.
	t.Setenv("JOSHBOT_SECRET_TEST_KEY", "sk-should-never-be-written")
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-s", "cli:b", "-m", "/model global-model --global"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil || cfg.Agents.Defaults.Model != "global-model" {
		t.Fatalf("config after --global: %v %+v", err, cfg)
	}
	if raw, _ := os.ReadFile(cfgPath); strings.Contains(string(raw), "sk-should") {
		t.Fatal("environment leaked into config")
	}
}

func TestIncidentsCommandsAndStatusLine(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)
	if r := runCLI(t, "", "--config", cfgPath, "status"); r.code != 0 || strings.Contains(r.stdout, "Incidents:") || !strings.Contains(r.stdout, "Model: scripted-model") {
		t.Fatalf("status before: %+v", r)
	}
	srv.Enqueue(providertest.Error(401, "kaput")) // not retried, so one request
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hi"); r.code != 1 {
		t.Fatalf("%+v", r)
	}
	r := runCLI(t, "", "--config", cfgPath, "status")
	if !strings.Contains(r.stdout, "Incidents: 1 in the last 24h (1 llm_failure)") {
		t.Fatalf("status: %+v", r)
	}
	for _, args := range [][]string{{"incidents", "list", "--json"}, {"--output", "json", "incidents", "list"}} {
		r = runCLI(t, "", append([]string{"--config", cfgPath}, args...)...)
		var list struct {
			SchemaVersion int              `json:"schema_version"`
			Incidents     []agent.Incident `json:"incidents"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || list.SchemaVersion != 1 || len(list.Incidents) != 1 ||
			list.Incidents[0].Kind != "llm_failure" || !strings.Contains(list.Incidents[0].Error, "kaput") {
			t.Fatalf("%v: %v %+v", args, err, r)
		}
	}
	if r := runCLI(t, "", "--config", cfgPath, "incidents", "summary"); !strings.Contains(r.stdout, "llm_failure") || !strings.Contains(r.stdout, "1 in 24h") {
		t.Fatalf("summary: %+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "--output", "json", "incidents", "summary")
	var sum struct {
		SchemaVersion int `json:"schema_version"`
		WindowHours   int `json:"window_hours"`
		Kinds         []struct {
			Kind          string
			Total, Recent int
		} `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.SchemaVersion != 1 || sum.WindowHours != 24 ||
		len(sum.Kinds) != 1 || sum.Kinds[0].Kind != "llm_failure" || sum.Kinds[0].Total != 1 || sum.Kinds[0].Recent != 1 {
		t.Fatalf("summary json: %v %+v", err, r)
	}
	if r := runCLI(t, "", "--config", cfgPath, "incidents", "clear"); r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("clear without terminal: %+v", r)
	}
	if r := runCLI(t, "", "--config", cfgPath, "incidents", "clear", "--force"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := runCLI(t, "", "--config", cfgPath, "incidents", "list"); !strings.Contains(r.stdout, "No incidents") {
		t.Fatalf("after clear: %+v", r)
	}

	// heal_timeouts: two recent timeouts raise the next start by a minute.
	log, _ := agent.OpenIncidentLog(filepath.Join(home, runtime.IncidentsFile), nil)
	for i := 0; i < 2; i++ {
		log.Record(agent.Incident{Time: time.Now().Add(-time.Hour), Kind: agent.IncidentTurnTimeout})
	}
	cfg, _ := config.Load(cfgPath)
	cfg.Agents.Defaults.HealTimeouts = "bump"
	config.Save(cfgPath, cfg)
	if r := runCLI(t, "", "--config", cfgPath, "status"); !strings.Contains(r.stdout, "next start: 3m0s") {
		t.Fatalf("heal: %+v", r)
	}
}

func TestSendFileOnTheCLINamesTheAttachment(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ws := filepath.Join(filepath.Dir(cfgPath), "workspace")
	os.MkdirAll(ws, 0o700)
	os.WriteFile(filepath.Join(ws, "report.txt"), []byte("numbers"), 0o600)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("send_file", `{"path":"report.txt","caption":"here it is"}`)),
		providertest.Text("Sent."),
	)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "send me the report")
	want := "here it is\n[attachment not delivered by this channel: report.txt, 7 bytes, report.txt]\nSent.\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("%+v", r)
	}
}

func TestCronRunFiresDueJobsAndKeepsOthers(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("cron", `{"action":"add","message":"water the plants","every":"1h"}`)),
		providertest.Text("Scheduled."),
	)
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "remind me hourly"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	r := runCLI(t, "", "--config", cfgPath, "cron", "list")
	if !strings.Contains(r.stdout, "every 1h0m0s") || !strings.Contains(r.stdout, "water the plants") {
		t.Fatalf("list: %+v", r)
	}
	// Not due yet: nothing fires.
	if r := runCLI(t, "", "--config", cfgPath, "cron", "run"); !strings.Contains(r.stderr, "0 job(s) fired") {
		t.Fatalf("run: %+v", r)
	}
	// Make it due by editing the stored time, as an hour passing would.
	raw, _ := os.ReadFile(filepath.Join(home, runtime.CronFile))
	var jobs []map[string]any
	json.Unmarshal(raw, &jobs)
	jobs[0]["next"] = time.Now().Add(-time.Minute).Format(time.RFC3339)
	raw, _ = json.Marshal(jobs)
	os.WriteFile(filepath.Join(home, runtime.CronFile), raw, 0o600)
	srv.Enqueue(providertest.Text("Plants watered? Go check."))
	r = runCLI(t, "", "--config", cfgPath, "cron", "run")
	if r.code != 0 || r.stdout != "[scheduled] Plants watered? Go check.\n" || !strings.Contains(r.stderr, "1 job(s) fired") {
		t.Fatalf("run: %+v", r)
	}
	if r := runCLI(t, "", "--config", cfgPath, "cron", "list"); !strings.Contains(r.stdout, "water the plants") {
		t.Fatalf("recurring job gone: %+v", r)
	}
}

func TestSkillsListAndTrustCLI(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ws := filepath.Join(filepath.Dir(cfgPath), "workspace")
	os.MkdirAll(filepath.Join(ws, "skills", "deploy"), 0o755)
	skill := "---\nname: deploy\ndescription: Ship the site\n---\nRun make deploy.\n"
	os.WriteFile(filepath.Join(ws, "skills", "deploy", "SKILL.md"), []byte(skill), 0o644)
	r := runCLI(t, "", "--config", cfgPath, "skills", "list")
	if !strings.Contains(r.stdout, "deploy                   untrusted") || !strings.Contains(r.stdout, "skill-creator            bundled") {
		t.Fatalf("list: %+v", r)
	}
	if r := runCLI(t, "", "--config", cfgPath, "skills", "trust", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "Trusted deploy") {
		t.Fatalf("trust: %+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "skills", "list", "--json")
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Skills        []struct {
			Name    string `json:"name"`
			State   string `json:"state"`
			Trusted bool   `json:"trusted"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.SchemaVersion != 1 {
		t.Fatalf("json: %v %q", err, r.stdout)
	}
	trusted, state := map[string]bool{}, map[string]string{}
	for i, s := range doc.Skills {
		trusted[s.Name], state[s.Name] = s.Trusted, s.State
		if i > 0 && doc.Skills[i-1].Name > s.Name {
			t.Errorf("skills not sorted by name: %q before %q", doc.Skills[i-1].Name, s.Name)
		}
	}
	if !trusted["deploy"] || !trusted["skill-creator"] || state["deploy"] != "trusted" || state["skill-creator"] != "bundled" {
		t.Fatalf("trusted = %v, state = %v", trusted, state)
	}
	// The trusted skill's summary reaches the model.
	srv.Enqueue(providertest.Text("ok"))
	runCLI(t, "", "--config", cfgPath, "agent", "-m", "ship it")
	if sys := srv.Requests()[0].Messages[0].Content; !strings.Contains(sys, "deploy: Ship the site") {
		t.Fatalf("summary not in prompt:\n%s", sys)
	}
	if r := runCLI(t, "", "--config", cfgPath, "skills", "trust", "nope"); r.code == 0 || !strings.Contains(r.stderr, "no such skill") {
		t.Fatalf("trust unknown: %+v", r)
	}
}

func TestConfigToolReadsWithoutCredentialsAndChangesOnlySafeKeys(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	cfg, _ := config.Load(cfgPath)
	p := cfg.Providers["custom"]
	p.APIKey = "sk-live-supersecret-123456"
	p.APIBase = "http://user:pw@" + strings.TrimPrefix(srv.URL(), "http://")
	cfg.Providers["custom"] = p
	config.Save(cfgPath, cfg)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("config", `{"action":"get"}`)),
		providertest.ToolCalls(providertest.Call("config", `{"action":"set","key":"providers.custom.api_base","value":"http://evil"}`)),
		providertest.ToolCalls(providertest.Call("config", `{"action":"set","key":"agents.defaults.max_tool_iterations","value":"500"}`)),
		providertest.ToolCalls(providertest.Call("config", `{"action":"set","key":"agents.defaults.max_tool_iterations","value":"20"}`)),
		providertest.Text("Done."),
	)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "tune yourself")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()
	result := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content }
	view := result(1)
	if strings.Contains(view, "supersecret") || strings.Contains(view, "pw@") || !strings.Contains(view, `"credential_set": true`) {
		t.Fatalf("view leaks or lacks credential state: %s", view)
	}
	if got := result(2); !strings.Contains(got, "cannot be changed from a conversation") {
		t.Fatalf("unsafe key: %q", got)
	}
	if got := result(3); !strings.Contains(got, "from 1 to 200") {
		t.Fatalf("out of range: %q", got)
	}
	if got := result(4); !strings.Contains(got, "max_tool_iterations: 50 → 20") {
		t.Fatalf("set: %q", got)
	}
	if !strings.Contains(r.stdout, "Config changed: agents.defaults.max_tool_iterations: 50 → 20") {
		t.Fatalf("user not told: %q", r.stdout)
	}
	after, err := config.Load(cfgPath)
	if err != nil || after.Agents.Defaults.MaxToolIterations != 20 || after.Providers["custom"].APIKey != "sk-live-supersecret-123456" || !strings.Contains(after.Providers["custom"].APIBase, "pw@") {
		t.Fatalf("config after: %v %+v", err, after)
	}
	if fi, _ := os.Stat(cfgPath); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestWorkspacePersonalityIsOffered(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	dir := filepath.Join(filepath.Dir(cfgPath), "workspace", "personalities")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "pirate.md"), []byte("Talk like a pirate."), 0o644)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "/personality")
	if !strings.Contains(r.stdout, "pirate") || !strings.Contains(r.stdout, "concise") {
		t.Fatalf("%+v", r)
	}
	runCLI(t, "", "--config", cfgPath, "agent", "-m", "/personality pirate")
	srv.Enqueue(providertest.Text("Arr."))
	runCLI(t, "", "--config", cfgPath, "agent", "-m", "hello")
	if sys := srv.Requests()[0].Messages[0].Content; !strings.Contains(sys, "Talk like a pirate.") {
		t.Fatalf("personality not in prompt:\n%s", sys)
	}
}
