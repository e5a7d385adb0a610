package main

import (
	"encoding/xml"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func met(f Figure) string {
	switch {
	case f.Met == nil:
		return "none"
	case *f.Met:
		return "met"
	}
	return "missed"
}

// A ratio target between figures of the same interleaved rounds is judged
// on the median of the per-round ratios: here the ratio of the medians
// would pass (12/10 = 1.2 ≤ 1.25) but round by round the figure is 1.5×
// its floor in most rounds, because the host was slow in different rounds
// for the two medians.
func TestRatioTargetIsMedianOfPerRoundRatios(t *testing.T) {
	r := &Report{}
	r.add(Figure{Name: "floor wall", Unit: "ms", PerRound: true, Samples: []float64{10, 20, 8, 8, 30}})
	r.add(Figure{Name: "cmd wall", Unit: "ms", Ref: "floor wall", MaxRatio: 1.25, PerRound: true, Samples: []float64{15, 30, 12, 12, 12}})
	f := r.Figures[1]
	if f.Rel == nil || !f.Rel.Paired {
		t.Fatalf("not paired: %+v", f.Rel)
	}
	if f.Rel.Ratio != 1.5 || f.Rel.RatioMin != 0.4 || f.Rel.RatioMax != 1.5 {
		t.Errorf("ratio %v (%v–%v), want 1.5 (0.4–1.5)", f.Rel.Ratio, f.Rel.RatioMin, f.Rel.RatioMax)
	}
	if f.Rel.RefMedian != 10 {
		t.Errorf("ref median %v, want 10", f.Rel.RefMedian)
	}
	if got := met(f); got != "missed" {
		t.Errorf("judged %s, want missed (per-round median 1.5 > 1.25)", got)
	}
}

// Figures not measured in the same rounds (different sample counts, or
// not marked PerRound) are compared by their medians.
func TestRatioOfMediansWhenNotPaired(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ref, fig Figure
		ratio    float64
		want     string
	}{
		{"different counts", Figure{Samples: []float64{10, 10, 10}, PerRound: true}, Figure{Samples: []float64{21, 19}, PerRound: true, MaxRatio: 2}, 2, "met"},
		{"not per round", Figure{Samples: []float64{10, 10}}, Figure{Samples: []float64{25, 26}, PerRound: true, MaxRatio: 2}, 2.55, "missed"},
		{"at least", Figure{Samples: []float64{100}}, Figure{Samples: []float64{20}, MinRatio: 0.25}, 0.2, "missed"},
		{"at least met", Figure{Samples: []float64{100}}, Figure{Samples: []float64{30}, MinRatio: 0.25}, 0.3, "met"},
		{"ratio shown, no bound", Figure{Samples: []float64{4}}, Figure{Samples: []float64{6}}, 1.5, "none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{}
			tt.ref.Name, tt.ref.Unit = "ref", "ms"
			tt.fig.Name, tt.fig.Unit, tt.fig.Ref = "fig", "ms", "ref"
			r.add(tt.ref)
			r.add(tt.fig)
			f := r.Figures[1]
			if f.Rel == nil || f.Rel.Paired || math.Abs(f.Rel.Ratio-tt.ratio) > 1e-9 {
				t.Fatalf("relative %+v, want unpaired ratio %v", f.Rel, tt.ratio)
			}
			if got := met(f); got != tt.want {
				t.Errorf("judged %s, want %s", got, tt.want)
			}
		})
	}
}

// A page-fault target is a count over the floor's, per round.
func TestMaxOverTarget(t *testing.T) {
	r := &Report{}
	r.add(Figure{Name: "floor faults", Unit: "faults", PerRound: true, Samples: []float64{400, 420, 410}})
	r.add(Figure{Name: "ok", Unit: "faults", Ref: "floor faults", MaxOver: 120, PerRound: true, Samples: []float64{500, 540, 530}})
	r.add(Figure{Name: "past", Unit: "faults", Ref: "floor faults", MaxOver: 120, PerRound: true, Samples: []float64{530, 545, 531}})
	if f := r.Figures[1]; f.Rel.Over != 120 || met(f) != "met" {
		t.Errorf("ok: over %v, %s; want 120, met", f.Rel.Over, met(f))
	}
	if f := r.Figures[2]; f.Rel.Over != 125 || met(f) != "missed" {
		t.Errorf("past: over %v, %s; want 125, missed", f.Rel.Over, met(f))
	}
}

// Every target a figure has must hold; an absolute target still applies
// beside a relative one, and a relative target whose reference is absent
// is missed, not silently passed. A reference added later is found when
// the report is judged as a whole.
func TestTargetsCombineAndReferencesResolve(t *testing.T) {
	r := &Report{}
	r.add(Figure{Name: "both", Unit: "ms", Target: 1, Ref: "later", MaxRatio: 3, Samples: []float64{2}})
	r.add(Figure{Name: "orphan", Unit: "ms", Ref: "nowhere", MaxRatio: 3, Samples: []float64{2}})
	r.add(Figure{Name: "floor", Unit: "ms", AtLeast: 0.5, Samples: []float64{0.4}})
	if got := met(r.Figures[0]); got != "missed" {
		t.Errorf("before its reference exists: %s, want missed", got)
	}
	r.add(Figure{Name: "later", Unit: "ms", Samples: []float64{1}})
	r.judge()
	if f := r.Figures[0]; f.Rel == nil || f.Rel.Ratio != 2 || met(f) != "missed" {
		t.Errorf("both: %+v %s; want ratio 2 and missed (2 ms > 1 ms absolute)", f.Rel, met(f))
	}
	if f := r.Figures[1]; f.Rel == nil || !f.Rel.Missing || met(f) != "missed" || !strings.Contains(f.against(), "nowhere: not in this report") {
		t.Errorf("orphan: %+v %s %q", f.Rel, met(f), f.against())
	}
	if got := met(r.Figures[2]); got != "missed" {
		t.Errorf("at least: %s, want missed", got)
	}
}

func goldenReport() *Report {
	r := &Report{Date: "2026-12-03T12:00:00Z", Host: "test host", Runs: 3}
	r.add(Figure{Name: "binary size", Unit: "MiB", Target: 14, Samples: []float64{13.2}})
	r.add(Figure{Name: "floor wall", Unit: "ms", PerRound: true, Samples: []float64{10, 11, 12}})
	r.add(Figure{Name: "floor page faults", Unit: "faults", PerRound: true, Samples: []float64{400, 410, 405}})
	r.add(Figure{Name: "version wall", Unit: "ms", Ref: "floor wall", MaxRatio: 1.15, PerRound: true, Samples: []float64{11, 12, 13}})
	r.add(Figure{Name: "version page faults", Unit: "faults", Ref: "floor page faults", MaxOver: 120, PerRound: true, Samples: []float64{520, 525, 515}, Note: "minor faults"})
	r.add(Figure{Name: "turn wall", Unit: "ms", Ref: "version wall", MaxRatio: 2, PerRound: true, Samples: []float64{30, 20, 22}})
	r.add(Figure{Name: "turn peak RSS", Unit: "MiB", Target: 13, Samples: []float64{12.5, 12.75, 13}})
	r.add(Figure{Name: "direct turns", Unit: "req/s", Samples: []float64{1000}})
	r.add(Figure{Name: "served turns", Unit: "req/s", Ref: "direct turns", MinRatio: 0.25, Samples: []float64{300}})
	r.add(Figure{Name: "untargeted", Unit: "allocs/op", Samples: []float64{286, 286}})
	r.Missing = []Missing{{Name: "something", Why: "not built yet"}}
	traces := [][]initLine{
		{{"github.com/joshbot/joshbot/agent", 0.006, 1320, 6}, {"gopkg.in/telebot%2ev3", 0.52, 70304, 1289}, {"encoding/gob", 0.17, 27408, 367}},
		{{"github.com/joshbot/joshbot/agent", 0.008, 1320, 6}, {"gopkg.in/telebot%2ev3", 0.60, 70304, 1289}, {"encoding/gob", 0.15, 27408, 367}},
		{{"github.com/joshbot/joshbot/agent", 0.07, 1320, 6}, {"gopkg.in/telebot%2ev3", 0.50, 70304, 1289}, {"encoding/gob", 0.16, 27408, 367}},
	}
	r.Inits = foldInits("joshbot version", traces)
	r.add(ownFigure(traces, r.Inits))
	r.judge()
	return r
}

// The rendered report, byte for byte: the table with every figure's
// median, range, reference and judgement, and the initialiser tables.
// Run with -update to accept a deliberate change.
func TestMarkdownGolden(t *testing.T) {
	r := goldenReport()
	got := r.markdown()
	path := filepath.Join("testdata", "report.golden.md")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("markdown differs from %s (go test -update to accept):\n%s", path, got)
	}
	for _, f := range r.Figures {
		want := map[string]string{
			"binary size": "met", "version wall": "met", "version page faults": "met", "turn wall": "met",
			"turn peak RSS": "met", "served turns": "met", "slowest joshbot package initialiser": "met",
		}[f.Name]
		if want == "" {
			want = "none"
		}
		if met(f) != want {
			t.Errorf("%s: %s, want %s", f.Name, met(f), want)
		}
	}
	var doc struct {
		Rects []struct {
			Fill string `xml:"fill,attr"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(r.svg()), &doc); err != nil {
		t.Fatalf("svg: %v", err)
	}
	if len(doc.Rects) != 7 {
		t.Errorf("svg has %d bars, want one per targeted figure (7)", len(doc.Rects))
	}
}

func TestParseInitTrace(t *testing.T) {
	out := `joshbot dev (go1.26.8, linux/amd64)
init runtime @0.023 ms, 0.11 ms clock, 0 bytes, 0 allocs
init gopkg.in/telebot%2ev3 @3.7 ms, 0.52 ms clock, 70304 bytes, 1289 allocs
init github.com/joshbot/joshbot/joshbot/internal/jsonkeys @1.4 ms, 0 ms clock, 0 bytes, 0 allocs
init broken @1 ms, x ms clock, 0 bytes, 0 allocs
`
	got := parseInitTrace(out)
	want := []initLine{{"runtime", 0.11, 0, 0}, {"gopkg.in/telebot%2ev3", 0.52, 70304, 1289}, {"github.com/joshbot/joshbot/joshbot/internal/jsonkeys", 0, 0, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The joshbot check takes, per run, the slowest joshbot package, and
// judges the median of those against 50 µs; the top lists are sorted and
// cut at ten.
func TestInitFigures(t *testing.T) {
	var runs [][]initLine
	for k := 0; k < 3; k++ {
		var run []initLine
		for i := 0; i < 15; i++ {
			run = append(run, initLine{pkg: "std/p" + string(rune('a'+i)), ms: float64(i), bytes: float64(100 - i), allocs: 1})
		}
		own := []float64{0.01, 0.09, 0.02}[k]
		run = append(run, initLine{pkg: "github.com/joshbot/joshbot/x", ms: own}, initLine{pkg: "github.com/joshbot/joshbot/y", ms: 0.03})
		runs = append(runs, run)
	}
	tr := foldInits("cmd", runs)
	if len(tr.ByTime) != 10 || tr.ByTime[0].Package != "std/po" || len(tr.ByBytes) != 10 || tr.ByBytes[0].Package != "std/pa" {
		t.Errorf("top lists: %+v / %+v", tr.ByTime, tr.ByBytes)
	}
	if len(tr.Own) != 2 || tr.Own[0].Package != "github.com/joshbot/joshbot/y" {
		t.Errorf("own: %+v", tr.Own)
	}
	if got := initTotals(runs[:1]); len(got) != 1 || got[0] != 105.04 { // 0+1+…+14, 0.01, 0.03
		t.Errorf("initTotals of the first run = %v, want [105.04]", got)
	}
	if totals := initTotals(runs); tr.TotalMs != totals[2] { // 105.04, 105.12, 105.05
		t.Errorf("TotalMs %v, want the median of the runs' totals %v", tr.TotalMs, totals)
	}
	f := ownFigure(runs, tr)
	r := &Report{}
	r.add(f)
	if got := r.Figures[0]; got.Median != 0.03 || met(got) != "met" {
		t.Errorf("own figure median %v %s, want 0.03 met (per-run worst 0.03, 0.09, 0.03)", got.Median, met(got))
	}
}
