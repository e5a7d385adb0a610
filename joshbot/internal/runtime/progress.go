package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/joshbot/joshbot/tools"
)

type progressKey struct{}

// WithProgress returns ctx with report as the callback each tool call of a
// turn run with it reports itself to: the tool's name and a short line
// that says what the call is about (its path, pattern, command, query or
// url argument). Only tools wrapped by [ProgressTools] report.
func WithProgress(ctx context.Context, report func(tool, detail string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressTools wraps every registered tool so a call reports itself to
// the progress callback [WithProgress] put on its context. It is a value
// for [Options.WrapTools].
func ProgressTools(reg *tools.Registry) (*tools.Registry, error) {
	out := tools.NewRegistry()
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		if err := out.Register(progressTool{t}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type progressTool struct{ tools.Tool }

func (t progressTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	if report, ok := ctx.Value(progressKey{}).(func(tool, detail string)); ok {
		report(t.Name(), summarizeArgs(args))
	}
	return t.Tool.Execute(ctx, args)
}

// summarizeArgs picks a short line that says what a call is about: its
// path, pattern, command, query or url argument, cut to 80 characters.
func summarizeArgs(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"path", "pattern", "command", "query", "url"} {
		if s, ok := m[k].(string); ok {
			return clip(s, 80)
		}
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
