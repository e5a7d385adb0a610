package docscheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// Timeout bounds the whole drift check, whatever a conversation's turn
// timeout says: it is a background chore, not a conversation.
const Timeout = 5 * time.Minute

// maxIterations bounds its tool calls.
const maxIterations = 40

// readOnlyTools are the only tools the drift checker gets.
var readOnlyTools = []string{"read_file", "list_dir", "glob", "grep"}

// Options configures [Check]. Root, Workspace, Provider and Model are
// required.
type Options struct {
	// Root is the source tree to check: its README.md, docs/, skills and
	// code. The checker can read only inside it.
	Root string
	// Workspace is the agent's workspace; the report is written to
	// reports/doc-drift-<date>.md in it.
	Workspace string
	// Provider answers the checker's chat requests.
	Provider agent.Provider
	// ProviderName names the provider in error messages; "" means none.
	ProviderName string
	// Model is the model name sent to the provider.
	Model string
	// Logger receives the checker's log; nil means slog.Default().
	Logger *slog.Logger
	// Now dates the report; nil means time.Now.
	Now func() time.Time
	// Shell, when set, lets the checker verify what the documents say by
	// running read-only commands (the README's examples, --help): the
	// caller's shell tool, confined by its sandbox to Root, that asks
	// Approver before each command. A finding may then cite a command it
	// ran, and the report quotes that command's real output. Nil gives the
	// checker only the four reading tools.
	Shell tools.Tool
	// Approver approves each of Shell's commands: a human on a terminal.
	// Nil refuses every command (unattended runs, cron), and the checker
	// is told so by the refusal.
	Approver sandbox.Approver
}

// Report is what a check wrote.
type Report struct {
	// Path is the report file.
	Path string
	// Kept is the number of findings in the report; Dropped the number
	// left out for citing no file under Root.
	Kept, Dropped int
}

// finding is one discrepancy the checker reports.
type finding struct {
	Title    string     `json:"title"`
	Doc      string     `json:"doc"`
	Evidence []evidence `json:"evidence"`
	Proposal string     `json:"proposal"`
}

// evidence is a file path under the root (optionally with :line), or a
// command the checker ran with the shell and that command's output.
type evidence struct {
	Path    string
	Command string
	Output  string
}

// UnmarshalJSON reads a path string or a {"command","output"} object.
func (e *evidence) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &e.Path); err == nil {
		return nil
	}
	var c struct {
		Command string `json:"command"`
		Output  string `json:"output"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return errors.New("an evidence entry is neither a path nor a {\"command\",\"output\"} object")
	}
	e.Command, e.Output = c.Command, c.Output
	return nil
}

const prompt = `You are checking documentation drift. Using only read_file, list_dir, glob and grep,
compare what the code and config actually do with what README.md, docs/ and the bundled
skills (SKILL.md files) say. Do not propose changes to code; propose edits to documents only.

Answer with one JSON object and nothing else:
{"findings":[{"title":"...","doc":"the document that is wrong","evidence":["path/to/file.go:123"],"proposal":"the edit to make"}]}
Every finding must cite at least one evidence path (a file you read, relative to the tree root,
optionally with :line). Findings without evidence are discarded. Report {"findings":[]} when the
documents match the code.`

const shellPrompt = `

You may also verify what the documents say with the shell tool: run read-only commands only
(a documented example, a --help, a build or test that writes nothing outside the tree), never
one that changes files, installs anything or reaches the network. Each command is confined and
a human may refuse it; a refused command is no finding. A finding may cite a command you ran as
evidence, as an object in its evidence list: {"command":"the exact command line","output":"what it printed"}.`

// Check runs a bounded subagent that can read (read_file, list_dir, glob,
// grep) inside opts.Root, and run the commands opts.Approver approves when
// opts.Shell is set, asks it to compare what the code and config do with
// what the documents say, and writes its findings to the workspace. It
// changes nothing else itself. A finding that cites neither a file that
// exists under Root nor a command that ran is dropped before the report is
// written.
func Check(ctx context.Context, opts *Options) (*Report, error) {
	if opts == nil || opts.Provider == nil || opts.Model == "" || opts.Workspace == "" {
		return nil, errors.New("docscheck: Options.Provider, Model and Workspace are required")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, errorf("docscheck: Options.Root %q: %w", opts.Root, err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, errorf("docscheck: Options.Root %q is not a directory", opts.Root)
	}
	readOnly, err := readOnlyRegistry(root)
	if err != nil {
		return nil, err
	}
	text := prompt
	var ran *ranCommands
	if opts.Shell != nil {
		ran = &ranCommands{Tool: opts.Shell, out: map[string]string{}}
		if err := readOnly.Register(ran); err != nil {
			return nil, err
		}
		text += shellPrompt
		ctx = sandbox.WithApprover(ctx, opts.Approver)
	}
	// The checker's conversation is scratch: it lives in a directory of
	// its own and is removed, so it never mixes with the user's sessions.
	scratch, err := os.MkdirTemp("", "joshbot-docs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	store, err := memory.NewStore(scratch)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	ag, err := agent.New(opts.Provider, opts.Model, store, &agent.Options{
		Tools: readOnly, Workspace: opts.Workspace, Logger: log,
		Requests: agent.RequestOptions{ProviderName: opts.ProviderName, DisableStreaming: true},
		Limits:   agent.LimitOptions{MaxIterations: maxIterations, Timeout: Timeout},
		Memory:   agent.MemoryOptions{DisableLearning: true},
	})
	if err != nil {
		return nil, err
	}
	defer ag.Wait()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	reply, err := ag.Process(ctx, agent.Request{SessionKey: "docs:check", Text: text, Channel: "cli"})
	if err != nil {
		return nil, errorf("docs check: %w", err)
	}
	findings, err := parseFindings(reply.Text)
	if err != nil {
		return nil, errorf("docs check: the checker's answer is not the findings document: %w", err)
	}
	kept, dropped := keepEvidenced(findings, root, ran)
	now := time.Now().UTC()
	if opts.Now != nil {
		now = opts.Now().UTC()
	}
	name := "reports/doc-drift-" + now.Format(time.DateOnly) + ".md"
	if err := writeContained(ctx, opts.Workspace, name, render(kept, dropped, now)); err != nil {
		return nil, err
	}
	return &Report{Path: filepath.Join(opts.Workspace, name), Kept: len(kept), Dropped: dropped}, nil
}

// readOnlyRegistry holds only the reading filesystem tools, confined to
// root: the checker cannot write, run commands or reach the network.
func readOnlyRegistry(root string) (*tools.Registry, error) {
	full := tools.NewRegistry()
	if err := tools.RegisterFilesystem(full, root); err != nil {
		return nil, err
	}
	ro := tools.NewRegistry()
	for _, name := range readOnlyTools {
		t, ok := full.Get(name)
		if !ok {
			return nil, errorf("docs check: the %s tool is missing", name)
		}
		if err := ro.Register(t); err != nil {
			return nil, err
		}
	}
	return ro, nil
}

// writeContained writes the report with the workspace's own write_file
// tool, so the path is held inside the workspace by the same containment
// every other write gets.
func writeContained(ctx context.Context, ws, name, body string) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return errorf("workspace: %w", err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		return err
	}
	args, err := json.Marshal(map[string]string{"path": name, "content": body})
	if err != nil {
		return err
	}
	if _, err := reg.Execute(ctx, "write_file", args); err != nil {
		return errorf("write the drift report: %w", err)
	}
	return nil
}

// parseFindings reads the findings object from the answer, tolerating a
// code fence or words around it.
func parseFindings(text string) ([]finding, error) {
	start, end := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if start < 0 || end < start {
		return nil, errors.New("no JSON object in the answer")
	}
	var doc struct {
		Findings []finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &doc); err != nil {
		return nil, err
	}
	return doc.Findings, nil
}

// keepEvidenced drops every finding that cites no evidence: a path naming
// a file under root, or a command the checker really ran (in ran). The
// evidence list keeps only the paths that exist and the commands that
// ran, each with the output the shell gave, whatever the model quoted. A
// finding the model cannot ground is noise in a report people act on.
func keepEvidenced(in []finding, root string, ran *ranCommands) (kept []finding, dropped int) {
	for _, f := range in {
		var ev []evidence
		for _, e := range f.Evidence {
			if e.Command != "" {
				if out, ok := ran.output(e.Command); ok {
					ev = append(ev, evidence{Command: strings.TrimSpace(e.Command), Output: out})
				}
				continue
			}
			p, _, _ := strings.Cut(strings.TrimSpace(e.Path), ":")
			if p == "" || filepath.IsAbs(p) || strings.HasPrefix(filepath.Clean(p), "..") {
				continue
			}
			if fi, err := os.Stat(filepath.Join(root, p)); err == nil && !fi.IsDir() {
				ev = append(ev, evidence{Path: strings.TrimSpace(e.Path)})
			}
		}
		if len(ev) == 0 || strings.TrimSpace(f.Title) == "" {
			dropped++
			continue
		}
		f.Evidence = ev
		kept = append(kept, f)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Doc < kept[j].Doc })
	return kept, dropped
}

func render(fs []finding, dropped int, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Documentation drift, %s\n\n", at.Format(time.DateOnly))
	b.WriteString("Proposals only: nothing was changed. Each finding cites the files that show it.\n\n")
	if len(fs) == 0 {
		b.WriteString("No drift found.\n")
	}
	for i, f := range fs {
		fmt.Fprintf(&b, "## %d. %s\n\n", i+1, oneLine(f.Title))
		if f.Doc != "" {
			fmt.Fprintf(&b, "- Document: `%s`\n", oneLine(f.Doc))
		}
		for _, e := range f.Evidence {
			if e.Command != "" {
				fmt.Fprintf(&b, "- Evidence: ran `%s`, which printed:\n\n%s\n", oneLine(e.Command), indentBlock(e.Output))
				continue
			}
			fmt.Fprintf(&b, "- Evidence: `%s`\n", oneLine(e.Path))
		}
		if f.Proposal != "" {
			fmt.Fprintf(&b, "\nProposed edit: %s\n", strings.TrimSpace(f.Proposal))
		}
		b.WriteString("\n")
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "_%d findings without an evidence path were dropped._\n", dropped)
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// maxEvidenceOutput caps the output quoted for one command in the report.
const maxEvidenceOutput = 4 << 10

// ranCommands is the checker's shell, recording what each command it
// ran printed, so the report quotes real output and a finding cannot cite
// a command that never ran. Refused and failed-to-start commands are not
// recorded. It is safe for concurrent use.
type ranCommands struct {
	tools.Tool
	mu  sync.Mutex
	out map[string]string
}

// Execute runs the command and records its output.
func (r *ranCommands) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	res, err := r.Tool.Execute(ctx, args)
	var a struct {
		Command string `json:"command"`
	}
	if err == nil && json.Unmarshal(args, &a) == nil && strings.TrimSpace(a.Command) != "" {
		r.mu.Lock()
		r.out[strings.TrimSpace(a.Command)] = res
		r.mu.Unlock()
	}
	return res, err
}

// output is what command printed when the checker ran it, cut to
// maxEvidenceOutput; ok is false when it never ran (or r is nil).
func (r *ranCommands) output(command string) (out string, ok bool) {
	if r == nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out, ok = r.out[strings.TrimSpace(command)]
	if len(out) > maxEvidenceOutput {
		cut := maxEvidenceOutput
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "\n…[output cut]"
	}
	return out, ok
}

// indentBlock makes s a Markdown code block indented under a list item,
// safe whatever backticks s holds.
func indentBlock(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "      " + l
	}
	return strings.Join(lines, "\n") + "\n"
}
