package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SubagentTask is one piece of work handed to a subagent.
type SubagentTask struct {
	// Task is the instruction, self-contained: the subagent sees nothing
	// of the caller's conversation.
	Task string
	// Profile names a configured subagent profile (model, tools, prompt);
	// empty means the caller's own model and tools.
	Profile string
}

// Spawner runs subagents. The agent implements it and puts itself on each
// turn's context with [WithSpawner]; tools cannot import the agent, so this
// is the whole of what they know about it.
//
// Spawn runs task in a fresh context and returns the subagent's final
// answer. It must refuse when ctx is already as deep as subagents may nest,
// and it must keep ctx's approver and sandbox settings, so a subagent is
// never looser than its caller.
type Spawner interface {
	Spawn(ctx context.Context, task SubagentTask) (string, error)
}

type spawnerKey struct{}

// WithSpawner returns a context on which the subagent tools find s.
func WithSpawner(ctx context.Context, s Spawner) context.Context {
	return context.WithValue(ctx, spawnerKey{}, s)
}

// SpawnerFromContext returns the spawner set by [WithSpawner], or nil.
func SpawnerFromContext(ctx context.Context) Spawner {
	s, _ := ctx.Value(spawnerKey{}).(Spawner)
	return s
}

// ErrNoSpawner is returned by the subagent tools when the turn carries no
// [Spawner]: subagents are disabled, or nesting is at its limit.
var ErrNoSpawner = errors.New("subagents are not available in this turn")

// DefaultSubagentParallelism bounds how many subagents one parallel call
// runs at once when SubagentOptions.MaxParallel is zero.
const DefaultSubagentParallelism = 3

// maxSubagentTasks bounds one parallel or chain call, so one tool call
// cannot fan out without limit.
const maxSubagentTasks = 8

// The argument types of the subagent tools, from which their schemas are
// generated; the array bound is maxSubagentTasks, set by maxTasks.
type (
	subagentArgs struct {
		Task string `json:"task" jsonschema:"the complete instruction"`
	}
	parallelArgs struct {
		Tasks []string `json:"tasks" schema:"minItems=1"`
	}
	chainArgs struct {
		Steps []string `json:"steps" schema:"minItems=1"`
	}
	delegateArgs struct {
		Profile string `json:"profile"`
		Task    string `json:"task"`
	}
)

var (
	subagentSchema = lazySchema{of: (*subagentArgs)(nil)}
	parallelSchema = lazySchema{of: (*parallelArgs)(nil), edit: func(s *jsonschema.Schema) { maxTasks(s, "tasks") }}
	chainSchema    = lazySchema{of: (*chainArgs)(nil), edit: func(s *jsonschema.Schema) { maxTasks(s, "steps") }}
)

// maxTasks bounds the array argument prop to maxSubagentTasks items.
func maxTasks(s *jsonschema.Schema, prop string) {
	s.Properties[prop].MaxItems = jsonschema.Ptr(maxSubagentTasks)
}

// SubagentOptions configures [RegisterSubagents]. Nil means defaults.
type SubagentOptions struct {
	// MaxParallel bounds concurrent subagents in one parallel call; zero
	// means DefaultSubagentParallelism.
	MaxParallel int
	// Profiles are the names the delegate tool accepts, with one line
	// each describing what the profile is for; empty means delegate is not
	// registered.
	Profiles map[string]string
}

// RegisterSubagents registers subagent, parallel, chain and (when profiles
// are configured) delegate on reg. The tools find their [Spawner] on the
// turn's context, so they work only inside an agent turn.
func RegisterSubagents(reg *Registry, opts *SubagentOptions) error {
	if reg == nil {
		return errors.New("tools: register subagents: nil registry")
	}
	par := DefaultSubagentParallelism
	var profiles map[string]string
	if opts != nil {
		if opts.MaxParallel > 0 {
			par = opts.MaxParallel
		}
		profiles = opts.Profiles
	}
	all := []Tool{&subagentTool{}, &parallelTool{max: par}, &chainTool{}}
	if len(profiles) > 0 {
		all = append(all, &delegateTool{profiles: profiles, schema: schemaFor[delegateArgs](func(s *jsonschema.Schema) {
			for _, n := range sortedKeys(profiles) {
				s.Properties["profile"].Enum = append(s.Properties["profile"].Enum, n)
			}
		})})
	}
	for _, t := range all {
		if err := reg.Register(t); err != nil {
			return errorf("tools: register subagents: %w", err)
		}
	}
	return nil
}

func spawn(ctx context.Context, task SubagentTask) (string, error) {
	s := SpawnerFromContext(ctx)
	if s == nil {
		return "", ErrNoSpawner
	}
	if strings.TrimSpace(task.Task) == "" {
		return "", errors.New("task is empty: describe the work for the subagent")
	}
	return s.Spawn(ctx, task)
}

type subagentTool struct{}

func available(ctx context.Context) bool { return SpawnerFromContext(ctx) != nil }

func (*subagentTool) Available(ctx context.Context) bool { return available(ctx) }
func (*parallelTool) Available(ctx context.Context) bool { return available(ctx) }
func (*chainTool) Available(ctx context.Context) bool    { return available(ctx) }
func (*delegateTool) Available(ctx context.Context) bool { return available(ctx) }

func (*subagentTool) Name() string { return "subagent" }
func (*subagentTool) Description() string {
	return "Hand one self-contained task to a subagent with its own fresh context and a bounded number of steps; returns its summary. " +
		"The subagent sees nothing of this conversation, so put everything it needs in the task."
}
func (*subagentTool) Parameters() json.RawMessage {
	return subagentSchema.get()
}
func (*subagentTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a subagentArgs
	if err := decodeArgs("subagent", raw, &a); err != nil {
		return "", err
	}
	return spawn(ctx, SubagentTask{Task: a.Task})
}

type parallelTool struct{ max int }

func (*parallelTool) Name() string { return "parallel" }
func (*parallelTool) Description() string {
	return "Run several independent tasks, each in its own subagent, at the same time. Results come back in the order of the tasks."
}
func (*parallelTool) Parameters() json.RawMessage {
	return parallelSchema.get()
}
func (t *parallelTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a parallelArgs
	if err := decodeArgs("parallel", raw, &a); err != nil {
		return "", err
	}
	if err := checkTaskCount(len(a.Tasks)); err != nil {
		return "", err
	}
	if SpawnerFromContext(ctx) == nil {
		return "", ErrNoSpawner
	}
	results := make([]string, len(a.Tasks))
	sem := make(chan struct{}, t.max)
	var wg sync.WaitGroup
	for i, task := range a.Tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = "Error: " + ctx.Err().Error()
				return
			}
			defer func() { <-sem }()
			out, err := spawn(ctx, SubagentTask{Task: task})
			if err != nil {
				out = "Error: " + err.Error()
			}
			results[i] = out
		}()
	}
	wg.Wait()
	var b strings.Builder
	for i, r := range results {
		fmt.Fprintf(&b, "## Task %d: %s\n%s\n\n", i+1, oneLineTask(a.Tasks[i]), r)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

type chainTool struct{}

func (*chainTool) Name() string { return "chain" }
func (*chainTool) Description() string {
	return "Run steps one after another, each in its own subagent; every step receives the previous step's result. Returns the last result. " +
		"Stops at the first step that fails."
}
func (*chainTool) Parameters() json.RawMessage {
	return chainSchema.get()
}
func (*chainTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a chainArgs
	if err := decodeArgs("chain", raw, &a); err != nil {
		return "", err
	}
	if err := checkTaskCount(len(a.Steps)); err != nil {
		return "", err
	}
	prev := ""
	for i, step := range a.Steps {
		task := step
		if i > 0 {
			task = step + "\n\nResult of the previous step:\n" + prev
		}
		out, err := spawn(ctx, SubagentTask{Task: task})
		if err != nil {
			return "", errorf("chain step %d of %d: %w", i+1, len(a.Steps), err)
		}
		prev = out
	}
	return prev, nil
}

type delegateTool struct {
	profiles map[string]string
	schema   json.RawMessage // the profile enum is the configured names
}

func (*delegateTool) Name() string { return "delegate" }
func (t *delegateTool) Description() string {
	var b strings.Builder
	b.WriteString("Hand a task to a named subagent profile with its own model, tools and instructions. Profiles:")
	for _, n := range sortedKeys(t.profiles) {
		fmt.Fprintf(&b, " %s (%s);", n, t.profiles[n])
	}
	return strings.TrimSuffix(b.String(), ";")
}
func (t *delegateTool) Parameters() json.RawMessage {
	return t.schema
}
func (t *delegateTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a delegateArgs
	if err := decodeArgs("delegate", raw, &a); err != nil {
		return "", err
	}
	if _, ok := t.profiles[a.Profile]; !ok {
		return "", errorf("unknown profile %q; configured profiles: %s", a.Profile, strings.Join(sortedKeys(t.profiles), ", "))
	}
	return spawn(ctx, SubagentTask{Task: a.Task, Profile: a.Profile})
}

func checkTaskCount(n int) error {
	if n == 0 {
		return errors.New("no tasks given")
	}
	if n > maxSubagentTasks {
		return errorf("%d tasks given; at most %d run in one call, split the work", n, maxSubagentTasks)
	}
	return nil
}

func oneLineTask(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
