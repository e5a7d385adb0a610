package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSpawner answers each task with "done: <task>" after a delay that
// makes later tasks finish first, and records the peak concurrency.
type fakeSpawner struct {
	inFlight, peak atomic.Int32
	mu             sync.Mutex
	seen           []SubagentTask
	fail           string
}

func (f *fakeSpawner) Spawn(ctx context.Context, task SubagentTask) (string, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
	f.mu.Lock()
	f.seen = append(f.seen, task)
	f.mu.Unlock()
	if task.Task == f.fail {
		return "", errors.New("subagent broke")
	}
	d := time.Duration(10-len(task.Task)%10) * time.Millisecond
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return "done: " + task.Task, nil
}

func TestParallelKeepsOrderAndBoundsConcurrency(t *testing.T) {
	reg := NewRegistry()
	if err := RegisterSubagents(reg, &SubagentOptions{MaxParallel: 2}); err != nil {
		t.Fatal(err)
	}
	sp := &fakeSpawner{fail: "t3"}
	ctx := WithSpawner(context.Background(), sp)
	tasks := []string{"t1", "task two", "t3", "the fourth", "5"}
	args, _ := json.Marshal(map[string]any{"tasks": tasks})
	out, err := reg.Execute(ctx, "parallel", args)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for i, task := range tasks {
		want := "done: " + task
		if task == "t3" {
			want = "Error: subagent broke"
		}
		idx := strings.Index(out, fmt.Sprintf("## Task %d: %s\n%s", i+1, task, want))
		if idx <= last {
			t.Fatalf("task %d missing or out of order in:\n%s", i+1, out)
		}
		last = idx
	}
	if p := sp.peak.Load(); p > 2 || p < 2 {
		t.Fatalf("peak concurrency %d, want exactly the bound 2", p)
	}
}

func TestChainPassesResultsAndStopsAtFailure(t *testing.T) {
	reg := NewRegistry()
	RegisterSubagents(reg, nil)
	sp := &fakeSpawner{fail: "never"}
	ctx := WithSpawner(context.Background(), sp)
	out, err := reg.Execute(ctx, "chain", json.RawMessage(`{"steps":["a","b"]}`))
	if err != nil || !strings.HasPrefix(out, "done: b") || !strings.Contains(out, "done: a") {
		t.Fatalf("chain = %q, %v", out, err)
	}
	if len(sp.seen) != 2 || !strings.Contains(sp.seen[1].Task, "Result of the previous step:\ndone: a") {
		t.Fatalf("second step = %+v", sp.seen)
	}
	sp2 := &fakeSpawner{fail: "a"}
	_, err = reg.Execute(WithSpawner(context.Background(), sp2), "chain", json.RawMessage(`{"steps":["a","b"]}`))
	if err == nil || !strings.Contains(err.Error(), "step 1 of 2") || len(sp2.seen) != 1 {
		t.Fatalf("failing chain: %v, ran %d", err, len(sp2.seen))
	}
}

func TestSubagentToolsRefuseWithoutSpawnerAndBadInput(t *testing.T) {
	reg := NewRegistry()
	RegisterSubagents(reg, &SubagentOptions{Profiles: map[string]string{"coder": "writes code"}})
	ctx := WithSpawner(context.Background(), &fakeSpawner{})
	for _, tt := range []struct {
		ctx        context.Context
		tool, args string
		want       string
	}{
		{context.Background(), "subagent", `{"task":"x"}`, "not available"},
		{context.Background(), "parallel", `{"tasks":["x"]}`, "not available"},
		{ctx, "subagent", `{"task":"  "}`, "task is empty"},
		// The schema refuses these before the tool runs.
		{ctx, "parallel", `{"tasks":[]}`, `argument "tasks" must be an array of strings with 1 to 8 items, got []`},
		{ctx, "parallel", `{"tasks":["1","2","3","4","5","6","7","8","9"]}`, "with 1 to 8 items"},
		{ctx, "delegate", `{"profile":"writer","task":"x"}`, `argument "profile" must be one of "coder", got "writer"`},
	} {
		if _, err := reg.Execute(tt.ctx, tt.tool, json.RawMessage(tt.args)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want %q", tt.tool, tt.args, err, tt.want)
		}
	}
	sp := &fakeSpawner{}
	if out, err := reg.Execute(WithSpawner(context.Background(), sp), "delegate", json.RawMessage(`{"profile":"coder","task":"fix"}`)); err != nil || out != "done: fix" || sp.seen[0].Profile != "coder" {
		t.Fatalf("delegate: %q %v %+v", out, err, sp.seen)
	}
	tl, _ := reg.Get("subagent")
	if tl.(Conditional).Available(context.Background()) {
		t.Error("subagent reports itself available without a spawner")
	}
}

func TestParallelStopsWaitingWhenCancelled(t *testing.T) {
	reg := NewRegistry()
	RegisterSubagents(reg, &SubagentOptions{MaxParallel: 1})
	ctx, cancel := context.WithCancel(WithSpawner(context.Background(), &fakeSpawner{}))
	cancel()
	out, err := reg.Execute(ctx, "parallel", json.RawMessage(`{"tasks":["a","b"]}`))
	if err == nil && !strings.Contains(out, "context canceled") {
		t.Fatalf("cancelled parallel = %q, %v", out, err)
	}
}
