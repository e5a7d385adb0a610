package cron_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// askTool asks the turn's approver, as the shell tool does before a
// command, and reports the decision.
type askTool struct{}

func (askTool) Name() string                { return "needs_approval" }
func (askTool) Description() string         { return "asks the approver" }
func (askTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (askTool) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	d, err := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), &sandbox.ApprovalRequest{Command: "rm -rf /tmp/x"})
	return "decision: " + d.String() + " " + errString(err), nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestReminderPersistsFiresWithoutApprovalAndDeliversToLastChat(t *testing.T) {
	home := t.TempDir()
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{Name: "s", BaseURL: srv.URL(), APIKey: "k"})
	sessions, _ := memory.NewStore(filepath.Join(home, "sessions"))
	storePath := filepath.Join(home, "cron.json")
	store, err := cron.OpenStore(storePath)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterCron(reg, store, clk.Now); err != nil {
		t.Fatal(err)
	}
	reg.Register(askTool{})
	a, err := agent.New(client, "m", sessions, &agent.Options{Tools: reg, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait) // background learning writes beside the sessions
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("cron", `{"action":"add","message":"stretch your legs","in":"10m","channel":"discord"}`)),
		providertest.Text("I'll remind you."),
	)
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "telegram:7", Text: "remind me in 10m", Channel: "telegram", ChatID: "100"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(storePath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cron.json: %v %v", fi, err)
	}

	// Restart: everything comes back from disk.
	store, err = cron.OpenStore(storePath)
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := store.List(context.Background(), "")
	if len(jobs) != 1 || jobs[0].Channel != "telegram" || jobs[0].SessionKey != "telegram:7" || !jobs[0].Next.Equal(clk.Now().Add(10*time.Minute)) {
		t.Fatalf("jobs after restart = %+v", jobs)
	}
	ids, _ := cron.OpenChatIDs(filepath.Join(home, "chat_ids.json"))
	ids.Record("telegram", "200") // the user wrote from another chat since

	var delivered []bus.Outbound
	sched, err := cron.NewScheduler(&cron.SchedulerOptions{
		Store:   store,
		ChatIDs: ids,
		Now:     clk.Now,
		Run: func(ctx context.Context, job tools.CronJob, text string) (string, error) {
			r, err := a.Process(ctx, agent.Request{SessionKey: job.SessionKey, Text: text, Channel: job.Channel, ChatID: job.ChatID})
			if r == nil {
				return "", err
			}
			return r.Text, err
		},
		Deliver: func(_ context.Context, m bus.Outbound) error { delivered = append(delivered, m); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	// Even a caller that could approve does not lend its approver to a
	// scheduled turn.
	ctx := sandbox.WithApprover(context.Background(), sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		return sandbox.Allow, nil
	}))
	clk.Add(9 * time.Minute)
	if n, err := sched.Tick(ctx); n != 0 || err != nil {
		t.Fatalf("early tick fired %d, %v", n, err)
	}
	clk.Add(2 * time.Minute)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("needs_approval", `{}`)), providertest.Text("Time to stretch!"))
	if n, err := sched.Tick(ctx); n != 1 || err != nil {
		t.Fatalf("tick fired %d, %v", n, err)
	}
	reqs := srv.Requests()
	turn := reqs[len(reqs)-2].Messages
	if !strings.Contains(turn[len(turn)-1].Content, "stretch your legs") || !strings.Contains(turn[len(turn)-1].Content, "Scheduled reminder") {
		t.Fatalf("cron turn prompt = %q", turn[len(turn)-1].Content)
	}
	res := reqs[len(reqs)-1].Messages
	if got := res[len(res)-1].Content; !strings.Contains(got, "decision: deny") || !strings.Contains(got, "no human") {
		t.Fatalf("approval in a cron turn: %q", got)
	}
	if len(delivered) != 1 || delivered[0].Channel != "telegram" || delivered[0].ChatID != "200" || delivered[0].Text != "Time to stretch!" {
		t.Fatalf("delivered = %+v", delivered)
	}
	if jobs, _ := store.List(context.Background(), ""); len(jobs) != 0 {
		t.Fatalf("one-shot job still stored: %+v", jobs)
	}
}

func TestRecurringJobFiresOnceAfterDowntimeAndKeepsSchedule(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	store, _ := cron.OpenStore(filepath.Join(t.TempDir(), "cron.json"))
	store.Add(context.Background(), tools.CronJob{Message: "check mail", SessionKey: "cli:default", Channel: "cli", Every: time.Hour, Next: clk.Now().Add(time.Hour)})
	runs := 0
	sched, _ := cron.NewScheduler(&cron.SchedulerOptions{Store: store, Now: clk.Now,
		Run:     func(context.Context, tools.CronJob, string) (string, error) { runs++; return "ok", nil },
		Deliver: func(context.Context, bus.Outbound) error { return nil }})
	clk.Add(5*time.Hour + 30*time.Minute)
	sched.Tick(context.Background())
	sched.Tick(context.Background())
	if runs != 1 {
		t.Fatalf("runs = %d, want 1", runs)
	}
	jobs, _ := store.List(context.Background(), "cli:default")
	if len(jobs) != 1 || !jobs[0].Next.Equal(time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)) {
		t.Fatalf("next = %+v", jobs)
	}
}

func TestCronToolRefusesBadSchedules(t *testing.T) {
	store, _ := cron.OpenStore(filepath.Join(t.TempDir(), "cron.json"))
	reg := tools.NewRegistry()
	tools.RegisterCron(reg, store, nil)
	ctx := tools.WithRecipient(context.Background(), tools.Recipient{Channel: "cli", SessionKey: "cli:x"})
	for _, tt := range []struct{ args, want string }{
		{`{"action":"add","message":"m","every":"10s"}`, "every"},
		{`{"action":"add","message":"m","in":"soon"}`, "in \"soon\""},
		{`{"action":"add","message":"m","in":"1m","every":"1h"}`, "exactly one"},
		{`{"action":"add","in":"1m"}`, "message"},
		{`{"action":"remove","id":"nope"}`, "no such scheduled job"},
		{`{"action":"fly"}`, `argument "action" must be one of "add", "list", "remove", got "fly"`},
	} {
		if _, err := reg.Execute(ctx, "cron", json.RawMessage(tt.args)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := reg.Execute(context.Background(), "cron", json.RawMessage(`{"action":"list"}`)); err == nil {
		t.Error("cron without a conversation should fail")
	}
	// Another session cannot remove a job.
	job, _ := store.Add(context.Background(), tools.CronJob{Message: "m", SessionKey: "cli:other", Channel: "cli", Next: time.Now().Add(time.Hour)})
	if _, err := reg.Execute(ctx, "cron", json.RawMessage(`{"action":"remove","id":"`+job.ID+`"}`)); err == nil {
		t.Error("removed another session's job")
	}
}

func TestHeartbeatStopsWithItsContext(t *testing.T) {
	store, _ := cron.OpenStore(filepath.Join(t.TempDir(), "cron.json"))
	past := time.Now().Add(-time.Minute)
	store.Add(context.Background(), tools.CronJob{Message: "m", SessionKey: "cli:x", Channel: "cli", Next: past})
	fired := make(chan string, 1)
	sched, _ := cron.NewScheduler(&cron.SchedulerOptions{Store: store,
		Run: func(_ context.Context, j tools.CronJob, _ string) (string, error) {
			return "", errors.New("provider down")
		},
		Deliver: func(_ context.Context, m bus.Outbound) error { fired <- m.Text; return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sched.Run(ctx, time.Hour) }()
	// The first tick runs at once; a failed job still tells the user.
	if got := <-fired; !strings.Contains(got, "failed: provider down") || !strings.Contains(got, `"m"`) {
		t.Fatalf("failure notice = %q", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
}
