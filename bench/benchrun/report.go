package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Figure is one measured quantity and the targets it is judged against.
//
// A target is absolute (Target, AtLeast: in the figure's own unit) or
// relative to another figure of the report, named by Ref: at most MaxRatio
// times it, at least MinRatio times it, or at most MaxOver above it. A
// figure may carry several; it meets them when it meets every one.
type Figure struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Target is the most the figure's median may be; zero means none.
	Target float64 `json:"target,omitempty"`
	// AtLeast is the least the figure's median may be; zero means none.
	AtLeast float64 `json:"at_least,omitempty"`
	// Ref names the figure this one is compared with; empty means none.
	// A Ref without a bound still shows the ratio, for information.
	Ref string `json:"ref,omitempty"`
	// MaxRatio is the most the figure may be as a multiple of Ref; zero
	// means none.
	MaxRatio float64 `json:"max_ratio,omitempty"`
	// MinRatio is the least the figure may be as a multiple of Ref; zero
	// means none.
	MinRatio float64 `json:"min_ratio,omitempty"`
	// MaxOver is the most the figure may exceed Ref by, in the unit;
	// zero means none.
	MaxOver float64 `json:"max_over,omitempty"`
	// PerRound says sample i was taken in round i of interleaved rounds,
	// so it pairs with sample i of another PerRound figure.
	PerRound bool      `json:"per_round,omitempty"`
	Samples  []float64 `json:"samples"`
	Median   float64   `json:"median"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	// Rel is the comparison with Ref, filled in when the report is
	// judged; nil without a Ref.
	Rel *Relative `json:"relative,omitempty"`
	// Met is nil when there is no target.
	Met *bool `json:"met,omitempty"`
	// Note qualifies the figure (where it comes from).
	Note string `json:"note,omitempty"`
}

// Relative is a figure set against its reference figure.
type Relative struct {
	// RefMedian is the reference figure's median, in its unit.
	RefMedian float64 `json:"ref_median"`
	RefUnit   string  `json:"ref_unit"`
	// Ratio and Over are the judged ratio and difference (figure − ref);
	// the ranges are over the rounds when paired.
	Ratio    float64 `json:"ratio"`
	RatioMin float64 `json:"ratio_min"`
	RatioMax float64 `json:"ratio_max"`
	Over     float64 `json:"over"`
	// Paired says the ratio is the median of per-round ratios (both
	// figures measured in the same interleaved rounds); otherwise it is
	// the ratio of the medians.
	Paired bool `json:"paired"`
	// Missing says the reference figure is not in the report, so the
	// relative targets could not be judged.
	Missing bool `json:"missing,omitempty"`
}

// Missing is a figure the suite knows of but cannot measure yet.
type Missing struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Report is everything one run of benchrun found.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	Date          string    `json:"date"`
	Host          string    `json:"host"`
	Runs          int       `json:"runs"`
	Figures       []Figure  `json:"figures"`
	Missing       []Missing `json:"missing,omitempty"`
	// Inits are the package initialisers of `joshbot version`, from
	// GODEBUG=inittrace=1; nil when not measured.
	Inits *InitTrace `json:"inits,omitempty"`
}

// add summarizes f and judges it against its targets; a figure with a Ref
// is judged against the reference as the report holds it now, and again
// by judge once every figure is in.
func (r *Report) add(f Figure) {
	f.Median, f.Min, f.Max = summarize(f.Samples)
	r.Figures = append(r.Figures, f)
	r.judgeOne(len(r.Figures) - 1)
}

// judge judges every figure again, so a figure added before its
// reference is judged too.
func (r *Report) judge() {
	for i := range r.Figures {
		r.judgeOne(i)
	}
}

func (r *Report) figure(name string) *Figure {
	for i := range r.Figures {
		if r.Figures[i].Name == name {
			return &r.Figures[i]
		}
	}
	return nil
}

func (r *Report) judgeOne(i int) {
	f := &r.Figures[i]
	f.Rel = nil
	if f.Ref != "" {
		if ref := r.figure(f.Ref); ref != nil {
			f.Rel = relate(f, ref)
		} else {
			f.Rel = &Relative{Missing: true}
		}
	}
	f.Met = f.judged()
}

// relate sets f against ref: per round when both were measured in the
// same interleaved rounds, else by their medians.
func relate(f, ref *Figure) *Relative {
	rel := &Relative{RefMedian: ref.Median, RefUnit: ref.Unit}
	if f.PerRound && ref.PerRound && len(f.Samples) == len(ref.Samples) && len(f.Samples) > 0 {
		ratios := make([]float64, 0, len(f.Samples))
		overs := make([]float64, 0, len(f.Samples))
		for k := range f.Samples {
			if ref.Samples[k] > 0 {
				ratios = append(ratios, f.Samples[k]/ref.Samples[k])
			}
			overs = append(overs, f.Samples[k]-ref.Samples[k])
		}
		if len(ratios) == len(f.Samples) {
			rel.Paired = true
			rel.Ratio, rel.RatioMin, rel.RatioMax = summarize(ratios)
			rel.Over, _, _ = summarize(overs)
			return rel
		}
	}
	if ref.Median > 0 {
		rel.Ratio = f.Median / ref.Median
		rel.RatioMin, rel.RatioMax = rel.Ratio, rel.Ratio
	}
	rel.Over = f.Median - ref.Median
	return rel
}

// hasTarget says whether f is judged at all.
func (f *Figure) hasTarget() bool {
	return f.Target > 0 || f.AtLeast > 0 || f.MaxRatio > 0 || f.MinRatio > 0 || f.MaxOver > 0
}

// relTarget says whether f has a target relative to its Ref.
func (f *Figure) relTarget() bool {
	return f.MaxRatio > 0 || f.MinRatio > 0 || f.MaxOver > 0
}

// judged is whether f meets every target it has: nil without any, false
// when a relative target cannot be judged for want of its reference.
func (f *Figure) judged() *bool {
	if !f.hasTarget() {
		return nil
	}
	met := true
	if f.Target > 0 && f.Median > f.Target {
		met = false
	}
	if f.AtLeast > 0 && f.Median < f.AtLeast {
		met = false
	}
	if f.relTarget() {
		switch rel := f.Rel; {
		case rel == nil || rel.Missing:
			met = false
		default:
			if f.MaxRatio > 0 && rel.Ratio > f.MaxRatio {
				met = false
			}
			if f.MinRatio > 0 && rel.Ratio < f.MinRatio {
				met = false
			}
			if f.MaxOver > 0 && rel.Over > f.MaxOver {
				met = false
			}
		}
	}
	return &met
}

// load is how far f is towards its tightest target: 1 is at the target,
// above 1 past it. The chart draws it; ok is false without a target.
func (f *Figure) load() (mid, lo, hi float64, ok bool) {
	worst := func(m, l, h float64) {
		if !ok || m > mid {
			mid, lo, hi = m, l, h
		}
		ok = true
	}
	if f.Target > 0 {
		worst(f.Median/f.Target, f.Min/f.Target, f.Max/f.Target)
	}
	if f.AtLeast > 0 && f.Median > 0 {
		worst(f.AtLeast/f.Median, f.AtLeast/max(f.Max, f.Median), f.AtLeast/max(f.Min, 1e-300))
	}
	if rel := f.Rel; rel != nil && !rel.Missing {
		if f.MaxRatio > 0 {
			worst(rel.Ratio/f.MaxRatio, rel.RatioMin/f.MaxRatio, rel.RatioMax/f.MaxRatio)
		}
		if f.MinRatio > 0 && rel.Ratio > 0 {
			worst(f.MinRatio/rel.Ratio, f.MinRatio/rel.RatioMax, f.MinRatio/max(rel.RatioMin, 1e-300))
		}
		if f.MaxOver > 0 && rel.RefMedian+f.MaxOver > 0 {
			b := rel.RefMedian + f.MaxOver
			v := rel.RefMedian + rel.Over
			worst(v/b, v/b, v/b)
		}
	}
	return mid, lo, hi, ok
}

// summarize returns the median, minimum and maximum of xs.
func summarize(xs []float64) (median, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}

func hostLine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func (r *Report) write(dir string) error {
	r.SchemaVersion = 2
	r.judge()
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.svg"), []byte(r.svg()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.markdown()), 0o644)
}

func (r *Report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# joshbot benchmark report\n\n")
	fmt.Fprintf(&b, "Generated by `make bench` on %s.  \nHost: %s.  \n", r.Date, r.Host)
	fmt.Fprintf(&b, "Process figures: %d interleaved rounds (one run of every scenario per round) after one warm-up round; median and min–max.  \n", r.Runs)
	b.WriteString("Process wall times are judged as ratios to a reference measured in the same rounds: the median of the per-round ratios (“paired”), " +
		"so a change in the host's speed during the suite cancels out; a ratio between figures not measured in the same rounds is the ratio of their medians. " +
		"Memory, size and serve-overhead targets are absolute.\n\n")
	b.WriteString("![figures against targets](report.svg)\n\n")
	b.WriteString("| figure | median | min–max | against | target | met |\n|---|---:|---:|---|---|:-:|\n")
	for _, f := range r.Figures {
		met := "—"
		if f.Met != nil {
			met = "✅"
			if !*f.Met {
				met = "❌"
			}
		}
		rng := "—"
		if len(f.Samples) > 1 {
			rng = fmt.Sprintf("%s–%s", num(f.Min), num(f.Max))
		}
		name := f.Name
		if f.Note != "" {
			name += " (" + f.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s | %s | %s | %s |\n", name, num(f.Median), f.Unit, rng, f.against(), f.targetText(), met)
	}
	if len(r.Missing) > 0 {
		b.WriteString("\nNot measured yet:\n\n")
		for _, m := range r.Missing {
			fmt.Fprintf(&b, "- %s: %s.\n", m.Name, m.Why)
		}
	}
	if r.Inits != nil {
		b.WriteString(r.Inits.markdown())
	}
	return b.String()
}

// against describes f beside its reference: the ratio (with its range
// over the rounds when paired), the difference, and the reference's name
// and median.
func (f *Figure) against() string {
	rel := f.Rel
	switch {
	case rel == nil:
		return "—"
	case rel.Missing:
		return fmt.Sprintf("%s: not in this report", f.Ref)
	}
	how := "ratio of medians"
	if rel.Paired {
		how = fmt.Sprintf("per round %.2f–%.2f", rel.RatioMin, rel.RatioMax)
	}
	return fmt.Sprintf("%.2f× %s (%s %s), %s; %s%s %s", rel.Ratio, f.Ref, num(rel.RefMedian), rel.RefUnit, how, sign(rel.Over), num(abs(rel.Over)), f.Unit)
}

// targetText states every target of f.
func (f *Figure) targetText() string {
	var t []string
	if f.Target > 0 {
		t = append(t, fmt.Sprintf("≤ %s %s", num(f.Target), f.Unit))
	}
	if f.AtLeast > 0 {
		t = append(t, fmt.Sprintf("≥ %s %s", num(f.AtLeast), f.Unit))
	}
	if f.MaxRatio > 0 {
		t = append(t, fmt.Sprintf("≤ %s× ref", trimNum(f.MaxRatio)))
	}
	if f.MinRatio > 0 {
		t = append(t, fmt.Sprintf("≥ %s× ref", trimNum(f.MinRatio)))
	}
	if f.MaxOver > 0 {
		t = append(t, fmt.Sprintf("≤ ref + %s %s", trimNum(f.MaxOver), f.Unit))
	}
	if len(t) == 0 {
		return "—"
	}
	return strings.Join(t, "; ")
}

func sign(x float64) string {
	if x < 0 {
		return "−"
	}
	return "+"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// trimNum formats a target bound without trailing zeros.
func trimNum(x float64) string {
	s := fmt.Sprintf("%.3f", x)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// num formats x with precision that suits its size.
func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x >= 1000:
		return fmt.Sprintf("%.0f", x)
	case x >= 100:
		return fmt.Sprintf("%.1f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}
