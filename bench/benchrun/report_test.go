package main

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tt := range []struct {
		in            []float64
		med, min, max float64
	}{
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
		{[]float64{7}, 7, 7, 7},
		{nil, 0, 0, 0},
	} {
		in := append([]float64(nil), tt.in...)
		med, lo, hi := summarize(tt.in)
		if med != tt.med || lo != tt.min || hi != tt.max {
			t.Errorf("summarize(%v) = %v %v %v, want %v %v %v", tt.in, med, lo, hi, tt.med, tt.min, tt.max)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("summarize reordered its input")
			}
		}
	}
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkTurnOneToolCall-2   	     300	   3000000 ns/op	  213087 B/op	     169 allocs/op
BenchmarkTurnOneToolCall-2   	     300	   5000000 ns/op	  213087 B/op	     171 allocs/op
BenchmarkSSEDecode-2   	 100	 800000 ns/op	  90.5 MB/s	 11000 B/op	 394 allocs/op
BenchmarkConversationTokens/learning=batched-2   	 3	 90000000 ns/op	 53.00 learn-tokens/turn	 4369 tokens/turn	 1.233 requests/turn	 900000 B/op	 9000 allocs/op
BenchmarkRewriteAfterSpawn/user_namespace-2  	 138	 8679070 ns/op	 203.8 rewrite-faults/op	 15519 rewrite-ns/page	 6000 B/op	 52 allocs/op
PASS`
	figs := parseBench("agent", out)
	got := map[string]Figure{}
	for _, f := range figs {
		got[f.Name+" "+f.Unit] = f
	}
	if f := got["BenchmarkTurnOneToolCall ms/op"]; len(f.Samples) != 2 || f.Samples[0] != 3 || f.Samples[1] != 5 {
		t.Errorf("ms/op samples = %v", f.Samples)
	}
	if f := got["BenchmarkTurnOneToolCall allocs/op"]; len(f.Samples) != 2 || f.Samples[1] != 171 {
		t.Errorf("allocs samples = %v", f.Samples)
	}
	if f := got["BenchmarkSSEDecode MB/s"]; len(f.Samples) != 1 || f.Samples[0] != 90.5 {
		t.Errorf("MB/s samples = %v", f.Samples)
	}
	// A benchmark's own per-turn metrics (b.ReportMetric) are figures too.
	if f := got["BenchmarkConversationTokens/learning=batched tokens/turn"]; len(f.Samples) != 1 || f.Samples[0] != 4369 {
		t.Errorf("tokens/turn samples = %v", f.Samples)
	}
	if f := got["BenchmarkConversationTokens/learning=batched learn-tokens/turn"]; len(f.Samples) != 1 || f.Samples[0] != 53 {
		t.Errorf("learn-tokens/turn samples = %v", f.Samples)
	}
	// So are its own per-op and per-page ones; bytes per op are not.
	if f := got["BenchmarkRewriteAfterSpawn/user_namespace rewrite-faults/op"]; len(f.Samples) != 1 || f.Samples[0] != 203.8 {
		t.Errorf("rewrite-faults/op samples = %v", f.Samples)
	}
	if f := got["BenchmarkRewriteAfterSpawn/user_namespace rewrite-ns/page"]; len(f.Samples) != 1 || f.Samples[0] != 15519 {
		t.Errorf("rewrite-ns/page samples = %v", f.Samples)
	}
	if _, ok := got["BenchmarkRewriteAfterSpawn/user_namespace B/op"]; ok {
		t.Error("B/op became a figure")
	}
	if len(figs) != 14 {
		t.Errorf("got %d figures, want 14: %+v", len(figs), figs)
	}
}

func TestReportMarksTargetsAndDrawsEveryRow(t *testing.T) {
	r := &Report{Runs: 3}
	r.add(Figure{Name: "fast", Unit: "ms", Target: 10, Samples: []float64{4, 5, 6}})
	r.add(Figure{Name: "slow <thing>", Unit: "ms", Target: 10, Samples: []float64{20, 30, 40}})
	r.add(Figure{Name: "untargeted", Unit: "MB/s", Samples: []float64{1}})
	r.Missing = []Missing{{Name: "idle gateway RSS", Why: "not built"}}
	if !*r.Figures[0].Met || *r.Figures[1].Met || r.Figures[2].Met != nil {
		t.Fatalf("met flags wrong: %+v", r.Figures)
	}
	md := r.markdown()
	for _, want := range []string{"| fast | 5.00 ms | 4.00–6.00 | — | ≤ 10.00 ms | ✅ |", "| slow <thing> | 30.00 ms", "❌", "idle gateway RSS: not built"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	svg := r.svg()
	var doc struct {
		Rects []struct {
			Fill string `xml:"fill,attr"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("svg is not well-formed XML: %v\n%s", err, svg)
	}
	if len(doc.Rects) != 2 || doc.Rects[0].Fill != "#2a7" || doc.Rects[1].Fill != "#d33" {
		t.Fatalf("want one green and one red bar, got %+v", doc.Rects)
	}
}

func TestStatusKiB(t *testing.T) {
	status := "Name:\tjoshbot\nVmPeak:\t  1000 kB\nVmRSS:\t    4668 kB\nRssAnon:\t    2112 kB\nRssFile:\t    2556 kB\n"
	if v, ok := statusKiB(status, "VmRSS:"); !ok || v != 4668 {
		t.Errorf("VmRSS = %v, %v; want 4668", v, ok)
	}
	if v, ok := statusKiB(status, "RssAnon:"); !ok || v != 2112 {
		t.Errorf("RssAnon = %v, %v; want 2112", v, ok)
	}
	if _, ok := statusKiB(status, "RssShmem:"); ok {
		t.Error("found a line that is not there")
	}
	if _, ok := statusKiB("VmRSS:\tlots kB\n", "VmRSS:"); ok {
		t.Error("accepted a value that is not a number")
	}
}

func TestParseParts(t *testing.T) {
	all, err := parseParts("")
	if err != nil || len(all) != len(allParts) {
		t.Fatalf(`parseParts("") = %v, %v; want every part`, all, err)
	}
	some, err := parseParts("serve, go")
	if err != nil || len(some) != 2 || !some["serve"] || !some["go"] {
		t.Fatalf(`parseParts("serve, go") = %v, %v`, some, err)
	}
	if _, err := parseParts("serve,disk"); err == nil || !strings.Contains(err.Error(), `"disk"`) {
		t.Fatalf("an unknown part was not named in the error: %v", err)
	}
}

// The report judges learning's token overhead in the 30-turn conversation
// against the 15% target, from the batched run's per-turn figures, and
// keeps only the per-turn figures of that benchmark.
func TestLearningOverheadFigure(t *testing.T) {
	out := `BenchmarkConversationTokens/learning=off-2   	 3	 90000000 ns/op	 0 learn-tokens/turn	 4296 tokens/turn	 1.167 requests/turn	 900 allocs/op
BenchmarkConversationTokens/learning=batched-2   	 3	 90000000 ns/op	 53.00 learn-tokens/turn	 4369 tokens/turn	 1.233 requests/turn	 900 allocs/op
BenchmarkConversationTokens/learning=batched-2   	 3	 90000000 ns/op	 60.00 learn-tokens/turn	 4376 tokens/turn	 1.233 requests/turn	 900 allocs/op
`
	figs := goFigures("agent", out, true)
	var overhead *Figure
	for i, f := range figs {
		if f.Unit == "ms/op" || f.Unit == "allocs/op" {
			t.Errorf("figure %s %s kept for a per-turn benchmark", f.Name, f.Unit)
		}
		if strings.HasPrefix(f.Name, "learning's token overhead") {
			overhead = &figs[i]
		}
	}
	if overhead == nil {
		t.Fatalf("no overhead figure in %+v", figs)
	}
	if overhead.Target != 15 || overhead.Unit != "%" || len(overhead.Samples) != 2 ||
		math.Abs(overhead.Samples[0]-100*53.0/(4369-53)) > 1e-9 || math.Abs(overhead.Samples[1]-100*60.0/(4376-60)) > 1e-9 {
		t.Errorf("overhead figure %+v", *overhead)
	}
}
