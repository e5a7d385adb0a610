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
var goBenches = []struct{ dir, pattern string }{
	{"agent", "Benchmark(TurnOneToolCall|ConversationTokens)$"},
	{"memory", "Benchmark(Load10k|Load500|Search|MemorySearch|Dream)"},
	{"tools", "Benchmark(MemorySearch|SessionSearch)"},
	{"providers", "Benchmark(SSEDecode|MarshalConversation50)$"},
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
		figs = append(figs, parseBench(gb.dir, string(out))...)
	}
	return figs, nil
}

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
				// A benchmark's own per-turn metrics (b.ReportMetric),
				// such as the tokens a conversation costs per turn.
				if strings.HasSuffix(unit, "/turn") {
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
