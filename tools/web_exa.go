package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// exaCategory is Exa's name for a [SearchQuery.Category], or "".
func exaCategory(c string) string {
	switch c {
	case "code":
		return "github"
	case "company":
		return "company"
	case "research":
		return "research paper"
	}
	return ""
}

// ExaCLIOptions configures [NewExaCLI]. Nil means defaults.
type ExaCLIOptions struct {
	// Program is the exa-cli executable, a name looked up on PATH when a
	// search runs or a path; empty means "exa".
	Program string
	// APIKey, when set, is given to the program as EXA_API_KEY. The
	// program sees no other credential: its environment is PATH, HOME,
	// TMPDIR and the locale, plus this key.
	APIKey string
}

// NewExaCLI returns the exa-cli backend: it runs
//
//	exa search QUERY --num-results N [--category C] --json
//
// directly (no shell, no sandbox: the program is the operator's), killed
// with its process group when the attempt's deadline passes, and reads
// Exa's JSON answer ({"results":[{"title","url","text"}]}) from its
// standard output. A program that is not installed fails at once, naming
// what it looked for.
func NewExaCLI(opts *ExaCLIOptions) SearchBackend {
	c := &exaCLI{program: "exa"}
	if opts != nil {
		if opts.Program != "" {
			c.program = opts.Program
		}
		c.key = opts.APIKey
	}
	return c
}

type exaCLI struct{ program, key string }

func (c *exaCLI) Name() string { return "exa-cli" }

// exaCLIOutputCap bounds what is read of the program's output.
const exaCLIOutputCap = 2 << 20

func (c *exaCLI) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	path, err := exec.LookPath(c.program)
	if err != nil {
		return nil, errorf("no %q executable on PATH (install exa-cli or set ExaCLIOptions.Program)", c.program)
	}
	text := q.Text
	if strings.HasPrefix(text, "-") {
		// A query is never read as a flag.
		text = " " + text
	}
	argv := []string{"search", text, "--num-results", strconv.Itoa(max(q.Max, 1))}
	if cat := exaCategory(q.Category); cat != "" {
		argv = append(argv, "--category", cat)
	}
	argv = append(argv, "--json")
	cmd := exec.CommandContext(ctx, path, argv...)
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 500 * time.Millisecond
	cmd.Env = c.env()
	var stdout, stderr capBuffer
	stdout.max, stderr.max = exaCLIOutputCap, 4<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, errorf("no answer in time: %w", ctx.Err())
	}
	if err != nil {
		msg := strings.Join(strings.Fields(stderr.String()), " ")
		if msg == "" {
			return nil, errorf("%s failed: %v", c.program, err)
		}
		return nil, errorf("%s failed: %v: %s", c.program, err, shorten(msg, 300))
	}
	res, ok := parseExaJSON(stdout.String())
	if !ok {
		return nil, errorf("%s printed no Exa JSON answer", c.program)
	}
	if len(res) == 0 {
		return nil, errors.New("no results")
	}
	if q.Max > 0 && len(res) > q.Max {
		res = res[:q.Max]
	}
	return res, nil
}

// env is the program's environment: what finding programs and files
// needs, and the key. Nothing else of joshbot's environment (provider
// keys, tokens) reaches it.
func (c *exaCLI) env() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	if c.key != "" {
		env = append(env, "EXA_API_KEY="+c.key)
	}
	return env
}

// capBuffer keeps the first max bytes written to it and drops the rest.
type capBuffer struct {
	bytes.Buffer
	max int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// parseExaJSON reads Exa's search answer, {"results":[...]} (or the bare
// array), from text that may carry other lines around it. ok is false
// when no such JSON is found.
func parseExaJSON(text string) (res []SearchResult, ok bool) {
	type hit struct {
		Title      string   `json:"title"`
		URL        string   `json:"url"`
		Text       string   `json:"text"`
		Snippet    string   `json:"snippet"`
		Summary    string   `json:"summary"`
		Highlights []string `json:"highlights"`
	}
	var hits []hit
	var obj struct {
		Results *[]hit `json:"results"`
	}
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i && json.Unmarshal([]byte(text[i:j+1]), &obj) == nil && obj.Results != nil {
		hits = *obj.Results
	} else if i, j := strings.Index(text, "["), strings.LastIndex(text, "]"); i >= 0 && j > i && json.Unmarshal([]byte(text[i:j+1]), &hits) == nil {
	} else {
		return nil, false
	}
	for _, h := range hits {
		snip := h.Text
		for _, s := range append([]string{h.Snippet, h.Summary}, h.Highlights...) {
			if snip == "" {
				snip = s
			}
		}
		if h.URL == "" {
			continue
		}
		res = append(res, SearchResult{Title: h.Title, URL: h.URL, Snippet: shorten(strings.Join(strings.Fields(snip), " "), 600)})
	}
	return res, true
}

// MCPTools finds a tool of a connected MCP server by the name the server
// gives it (web_search_exa, not mcp__exa__web_search_exa). The binary's MCP
// manager provides it; a server that is not running offers nothing.
type MCPTools interface {
	// MCPTool returns a tool named remote on some connected server, ready
	// to call, and whether one offers it.
	MCPTool(remote string) (Tool, bool)
}

// NewExaMCP returns the Exa MCP backend: it calls Exa's tools on whichever
// connected MCP server offers them, found through src at each search.
// web_search_exa answers general and research searches;
// get_code_context_exa answers code searches and company_research_exa
// company searches, each falling back to web_search_exa on a server
// without it. Results are read from Exa's JSON, or from "Title:" and
// "URL:" lines; an answer with neither (a code context) is one result
// holding its text.
func NewExaMCP(src MCPTools) SearchBackend { return &exaMCP{src: src} }

type exaMCP struct{ src MCPTools }

func (e *exaMCP) Name() string { return "exa-mcp" }

func (e *exaMCP) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	if e.src == nil {
		return nil, errors.New("no MCP servers are connected")
	}
	type call struct {
		tool string
		args map[string]any
	}
	general := call{"web_search_exa", map[string]any{"query": q.Text, "numResults": max(q.Max, 1)}}
	var want call
	switch q.Category {
	case "code":
		want = call{"get_code_context_exa", map[string]any{"query": q.Text}}
	case "company":
		want = call{"company_research_exa", map[string]any{"companyName": q.Text, "numResults": max(q.Max, 1)}}
	default:
		want = general
	}
	t, ok := e.src.MCPTool(want.tool)
	if !ok && want.tool != general.tool {
		want = general
		t, ok = e.src.MCPTool(want.tool)
	}
	if !ok {
		return nil, errorf("no connected MCP server offers %s", want.tool)
	}
	args, _ := json.Marshal(want.args)
	out, err := t.Execute(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errorf("no answer in time: %w", ctx.Err())
		}
		return nil, errorf("%s: %s", want.tool, shorten(strings.Join(strings.Fields(err.Error()), " "), 300))
	}
	res := parseExaText(out)
	if len(res) == 0 {
		body := strings.TrimSpace(unfenceText(out))
		if body == "" {
			return nil, errors.New("no results")
		}
		res = []SearchResult{{Title: "Exa " + want.tool + " answer", Snippet: shorten(strings.Join(strings.Fields(body), " "), 2000)}}
	}
	if q.Max > 0 && len(res) > q.Max {
		res = res[:q.Max]
	}
	return res, nil
}

// parseExaText reads results from an Exa MCP tool's text: Exa's JSON, or
// blocks of "Title: ..." / "URL: ..." / "Text: ..." lines.
func parseExaText(text string) []SearchResult {
	if res, ok := parseExaJSON(text); ok && len(res) > 0 {
		return res
	}
	var res []SearchResult
	var cur *SearchResult
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "title":
			res = append(res, SearchResult{Title: v})
			cur = &res[len(res)-1]
		case "url":
			if cur != nil && cur.URL == "" {
				cur.URL = v
			}
		case "text", "summary", "highlights", "snippet":
			if cur != nil && cur.Snippet == "" {
				cur.Snippet = shorten(v, 600)
			}
		}
	}
	out := res[:0]
	for _, r := range res {
		if r.URL != "" {
			out = append(out, r)
		}
	}
	return out
}

// unfenceText drops the fence lines an MCP result arrives in; the text is
// fenced again, as search results, before the model sees it.
func unfenceText(s string) string {
	var keep []string
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "<tool_output") || strings.HasPrefix(t, "</tool_output>") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}
