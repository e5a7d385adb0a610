package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// goBenches are the go test benchmarks the report carries, with the
// package that holds them. A pattern that matches nothing is skipped, so a
// benchmark that arrives later only needs a line here.
//
// A perTurn benchmark contributes only its own per-turn metrics: its time
// and allocations are those of a whole scripted conversation, which say
// nothing the per-turn figures do not. A label goes before the note of
// each of the benchmark's figures.
var goBenches = []struct {
	dir, pattern string
	perTurn      bool
	label        string
}{
	{"agent", "BenchmarkTurnOneToolCall$", false, ""},
	{"agent", "BenchmarkConversationTokens$", true, "tokens per turn of a scripted 30-turn conversation, learning off, batched and every turn"},
	{"sandbox", "BenchmarkConfinedTrue$", false, "shell-call cost: /bin/true run confined (Landlock helper), from Command to Wait"},
	{"sandbox", "BenchmarkStartTrue$", false, "shell-call cost through Sandbox.Start, the shell tool's path: /bin/true, its helper started as it runs (cold), ahead and ready (prestarted), or ahead and idle 20 ms, as between a conversation's commands (prestarted idle); started as it runs, the dedicated helper, which makes its own namespaces on amd64 (cold dedicated), and the same helper linked without that entry point (cold dedicated without entry); parent-faults/op is the calling process's minor faults"},
	{"sandbox", "BenchmarkRewriteAfterSpawn$", false, "what a child's start costs its parent afterwards: 200 pages it had written rewritten after /bin/true started in a user namespace (Go forks for it, as for every sandbox helper) and with none (Go vforks)"},
	{"memory", "Benchmark(Load10k|Load500|Search|MemorySearch|Dream)", false, ""},
	{"tools", "Benchmark(MemorySearch|SessionSearch)", false, ""},
	{"providers", "Benchmark(SSEDecode|MarshalConversation50)$", false, ""},
}

func runGoBenchmarks(root string) ([]Figure, error) {
	var figs []Figure
	for _, gb := range goBenches {
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", gb.pattern, "-benchmem", "-count", "5", "./...")
		cmd.Dir = root + "/" + gb.dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go test -bench in %s: %v\n%s", gb.dir, err, out)
		}
		for _, f := range goFigures(gb.dir, string(out), gb.perTurn) {
			if gb.label != "" {
				f.Note = gb.label + "; " + f.Note
			}
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// goFigures are the report's figures from one package's benchmark
// output: every metric, or for a perTurn benchmark its per-turn metrics
// and, from the conversation benchmark's batched run, learning's token
// overhead judged against its target.
func goFigures(pkg, out string, perTurn bool) []Figure {
	figs := parseBench(pkg, out)
	if !perTurn {
		return figs
	}
	kept := figs[:0]
	var learn, all []float64
	for _, f := range figs {
		if !strings.HasSuffix(f.Unit, "/turn") {
			continue
		}
		kept = append(kept, f)
		if f.Name == "BenchmarkConversationTokens/learning=batched" {
			switch f.Unit {
			case "learn-tokens/turn":
				learn = f.Samples
			case "tokens/turn":
				all = f.Samples
			}
		}
	}
	if len(learn) > 0 && len(learn) == len(all) {
		pct := make([]float64, len(learn))
		for i := range learn {
			pct[i] = 100 * learn[i] / (all[i] - learn[i])
		}
		kept = append(kept, Figure{Name: "learning's token overhead, batched, over the 30-turn conversation's own tokens", Unit: "%",
			Target: learningOverheadTarget, Samples: pct, Note: "go test -bench, " + pkg})
	}
	return kept
}

// learningOverheadTarget is the most learning may add to a conversation's
// tokens, in percent (issue 24).
const learningOverheadTarget = 15

// parseBench folds repeated lines of `go test -bench` output into one
// figure per benchmark and metric (time per op, allocations per op, MB/s).
func parseBench(pkg, out string) []Figure {
	type key struct{ name, unit string }
	samples := map[key][]float64{}
	var order []key
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // drop the GOMAXPROCS suffix
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			unit := f[i+1]
			switch unit {
			case "ns/op":
				v, unit = v/1e6, "ms/op"
			case "allocs/op", "MB/s":
			default:
				// A benchmark's own metrics (b.ReportMetric), such as
				// the tokens a conversation costs per turn or the page
				// faults a rewrite costs per op; bytes per op are left
				// out, as allocations say it.
				if strings.HasSuffix(unit, "/turn") || strings.HasSuffix(unit, "/page") ||
					(strings.HasSuffix(unit, "/op") && unit != "B/op") {
					break
				}
				continue
			}
			k := key{name, unit}
			if _, seen := samples[k]; !seen {
				order = append(order, k)
			}
			samples[k] = append(samples[k], v)
		}
	}
	var figs []Figure
	for _, k := range order {
		figs = append(figs, Figure{Name: k.name, Unit: k.unit, Samples: samples[k], Note: "go test -bench, " + pkg})
	}
	return figs
}
