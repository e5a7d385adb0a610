package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// Detection defaults: a sequence of at least DetectMinCalls distinct steps
// seen in DetectThreshold turns is worth writing down.
const (
	DetectThreshold = 3
	DetectMinCalls  = 3
)

// Detector notices turns that repeat the same sequence of tool calls and
// proposes a skill for it, written untrusted so an operator decides whether
// it is worth keeping. Counts persist in a small JSON file so patterns
// spread over separate runs are noticed. It is safe for concurrent use.
type Detector struct {
	lib  *Library
	path string
	log  *slog.Logger
	mu   sync.Mutex
}

// NewDetector returns a detector writing proposals into lib and keeping
// its counts at path (outside the workspace). log nil means slog.Default().
func NewDetector(lib *Library, path string, log *slog.Logger) *Detector {
	if log == nil {
		log = slog.Default()
	}
	return &Detector{lib: lib, path: path, log: log}
}

// pattern collapses repeats of one tool in a row, so reading three files
// and reading five count as the same habit.
func pattern(names []string) []string {
	var out []string
	for _, n := range names {
		if len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return out
}

// ProposalName is the skill name proposed for a tool sequence.
func ProposalName(seq []string) string {
	name := "pattern-" + strings.ReplaceAll(strings.ToLower(strings.Join(seq, "-")), "_", "-")
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-")
	}
	return name
}

// Observe records one turn's tool calls. It matches agent.Options.OnTurn.
// When a pattern reaches the threshold, a draft skill is written and
// logged; failures are logged, never returned, since they must not disturb
// the conversation.
func (d *Detector) Observe(_ string, toolNames []string) {
	seq := pattern(toolNames)
	if len(seq) < DetectMinCalls {
		return
	}
	key := strings.Join(seq, ">")
	d.mu.Lock()
	defer d.mu.Unlock()
	counts := map[string]int{}
	if data, err := os.ReadFile(d.path); err == nil {
		if json.Unmarshal(data, &counts) != nil {
			counts = map[string]int{}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.log.Warn("skill detection: counts unreadable", "err", err)
		return
	}
	counts[key]++
	n := counts[key]
	data, _ := json.MarshalIndent(counts, "", "  ")
	if err := writeAtomic(d.path, data); err != nil {
		d.log.Warn("skill detection: counts not saved", "err", err)
	}
	if n != DetectThreshold {
		return
	}
	name := ProposalName(seq)
	if _, err := os.Stat(d.lib.Dir() + "/" + name); err == nil {
		return
	}
	var steps strings.Builder
	for i, s := range seq {
		fmt.Fprintf(&steps, "%d. Call `%s`.\n", i+1, s)
	}
	content := fmt.Sprintf("---\nname: %s\ndescription: Proposed from a repeated tool sequence (%s); review and describe when to use it\n---\n"+
		"# Proposed skill\n\nThis draft was written automatically because the same sequence of tool calls ran in %d turns.\n"+
		"Edit it into a real procedure, or delete it. It is untrusted until `joshbot skills trust %s`.\n\n%s",
		name, strings.Join(seq, " → "), n, name, steps.String())
	p, err := d.lib.Write(name, content)
	if err != nil {
		d.log.Warn("skill detection: proposal not written", "skill", name, "err", err)
		return
	}
	d.log.Info("proposed a skill from a repeated tool pattern; review it, then run joshbot skills trust", "skill", name, "path", p)
}
