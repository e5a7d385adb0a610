package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// InitTrace is what GODEBUG=inittrace=1 says of a command's package
// initialisers, over several runs.
type InitTrace struct {
	Command string `json:"command"`
	Runs    int    `json:"runs"`
	// TotalMs is the median over the runs of the summed init clock time.
	TotalMs float64 `json:"total_ms"`
	// ByTime and ByBytes are the top initialisers by median clock time
	// and by bytes allocated.
	ByTime  []InitRow `json:"by_time"`
	ByBytes []InitRow `json:"by_bytes"`
	// Own is every package whose path starts with ownPrefix, slowest
	// first.
	Own []InitRow `json:"own"`
}

// InitRow is one package's initialiser, medians over the runs.
type InitRow struct {
	Package string  `json:"package"`
	Ms      float64 `json:"ms"`
	Bytes   float64 `json:"bytes"`
	Allocs  float64 `json:"allocs"`
}

// ownPrefix marks joshbot's own packages among the initialisers.
const ownPrefix = "github.com/joshbot/"

// ownInitTarget is the most any joshbot package may take to initialise,
// in ms (issue 24).
const ownInitTarget = 0.05

// initTop is how many initialisers each top list holds.
const initTop = 10

// initLine is one line of inittrace output.
type initLine struct {
	pkg    string
	ms     float64
	bytes  float64
	allocs float64
}

// parseInitTrace reads the lines GODEBUG=inittrace=1 writes to stderr:
//
//	init net/http @3.2 ms, 0.045 ms clock, 4712 bytes, 49 allocs
//
// Other lines are ignored. The package path is as the runtime prints it
// (gopkg.in/telebot%2ev3).
func parseInitTrace(out string) []initLine {
	var lines []initLine
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init PKG @T ms, C ms clock, B bytes, A allocs
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		by, err2 := strconv.ParseFloat(f[7], 64)
		al, err3 := strconv.ParseFloat(f[9], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		lines = append(lines, initLine{pkg: f[1], ms: ms, bytes: by, allocs: al})
	}
	return lines
}

// foldInits folds the runs' traces into medians per package.
func foldInits(command string, runs [][]initLine) *InitTrace {
	type acc struct{ ms, bytes, allocs []float64 }
	per := map[string]*acc{}
	var order []string
	for _, run := range runs {
		for _, l := range run {
			a := per[l.pkg]
			if a == nil {
				a = &acc{}
				per[l.pkg] = a
				order = append(order, l.pkg)
			}
			a.ms, a.bytes, a.allocs = append(a.ms, l.ms), append(a.bytes, l.bytes), append(a.allocs, l.allocs)
		}
	}
	rows := make([]InitRow, 0, len(order))
	for _, p := range order {
		a := per[p]
		ms, _, _ := summarize(a.ms)
		by, _, _ := summarize(a.bytes)
		al, _, _ := summarize(a.allocs)
		rows = append(rows, InitRow{Package: p, Ms: ms, Bytes: by, Allocs: al})
	}
	t := &InitTrace{Command: command, Runs: len(runs)}
	t.TotalMs, _, _ = summarize(initTotals(runs))
	byTime := slices.Clone(rows)
	slices.SortStableFunc(byTime, func(a, b InitRow) int { return cmpDesc(a.Ms, b.Ms) })
	t.ByTime = byTime[:min(initTop, len(byTime))]
	byBytes := slices.Clone(rows)
	slices.SortStableFunc(byBytes, func(a, b InitRow) int { return cmpDesc(a.Bytes, b.Bytes) })
	t.ByBytes = byBytes[:min(initTop, len(byBytes))]
	for _, r := range byTime {
		if strings.HasPrefix(r.Package, ownPrefix) {
			t.Own = append(t.Own, r)
		}
	}
	return t
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// ownFigure is the judged figure of the slowest joshbot initialiser: per
// run, the longest any joshbot package took.
func ownFigure(runs [][]initLine, t *InitTrace) Figure {
	var worst []float64
	for _, run := range runs {
		w := 0.0
		for _, l := range run {
			if strings.HasPrefix(l.pkg, ownPrefix) {
				w = max(w, l.ms)
			}
		}
		worst = append(worst, w)
	}
	note := "GODEBUG=inittrace=1, " + t.Command
	if len(t.Own) > 0 {
		note += "; slowest by median: " + t.Own[0].Package
	}
	return Figure{Name: "slowest joshbot package initialiser", Unit: "ms", Target: ownInitTarget, Samples: worst, Note: note}
}

// measureInits runs each of bins with GODEBUG=inittrace=1, runs times,
// alternately (one run of each per round, after a warm-up round), and
// returns each binary's traces in the order of bins.
func measureInits(bins []string, args []string, runs int) ([][][]initLine, error) {
	all := make([][][]initLine, len(bins))
	for i := 0; i < runs+1; i++ {
		for j, bin := range bins {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("GODEBUG=inittrace=1 %s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.Bytes())
			}
			if i == 0 {
				continue // warms the page cache, as the process rounds do
			}
			lines := parseInitTrace(stderr.String())
			if len(lines) == 0 {
				return nil, fmt.Errorf("GODEBUG=inittrace=1 %s %s printed no init lines", bin, strings.Join(args, " "))
			}
			all[j] = append(all[j], lines)
		}
	}
	return all, nil
}

// initTotals is, per run, the init clock of every package summed.
func initTotals(runs [][]initLine) []float64 {
	totals := make([]float64, len(runs))
	for i, run := range runs {
		for _, l := range run {
			totals[i] += l.ms
		}
	}
	return totals
}

func (t *InitTrace) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Package initialisers of `%s`\n\n", t.Command)
	fmt.Fprintf(&b, "From `GODEBUG=inittrace=1`, medians of %d runs; all packages' init together: %s ms. "+
		"No joshbot package may take more than %s ms (the figure “slowest joshbot package initialiser” above).\n\n", t.Runs, num(t.TotalMs), trimNum(ownInitTarget))
	table := func(title string, rows []InitRow) {
		fmt.Fprintf(&b, "%s\n\n| package | clock | bytes | allocs |\n|---|---:|---:|---:|\n", title)
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s ms | %.0f | %.0f |\n", r.Package, num(r.Ms), r.Bytes, r.Allocs)
		}
		b.WriteString("\n")
	}
	table("Top ten by time:", t.ByTime)
	table("Top ten by bytes allocated:", t.ByBytes)
	if len(t.Own) > 0 {
		table("joshbot's own packages, slowest first:", t.Own)
	}
	return b.String()
}
