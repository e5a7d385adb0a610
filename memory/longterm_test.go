package memory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newLongTerm(t testing.TB, opts *LongTermOptions) *LongTerm {
	t.Helper()
	l, err := OpenLongTerm(filepath.Join(t.TempDir(), "workspace"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestOpenLongTermRejectsBadOptions(t *testing.T) {
	for _, tt := range []struct {
		opts *LongTermOptions
		want string
	}{
		{&LongTermOptions{DreamMode: "sometimes"}, "LongTermOptions.DreamMode"},
		{&LongTermOptions{MaxBytes: 100}, "LongTermOptions.MaxBytes"},
	} {
		// The error names the option an importer sets, never a setting
		// of a program that happens to import the package.
		_, err := OpenLongTerm(t.TempDir(), tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "agents.") {
			t.Errorf("OpenLongTerm(%+v) err = %v, want mention of %s and no config key", tt.opts, err, tt.want)
		}
	}
	if _, err := OpenLongTerm("", nil); err == nil {
		t.Error("empty dir accepted")
	}
}

func TestAddFactsDeduplicatesAndScopes(t *testing.T) {
	l := newLongTerm(t, nil)
	if err := os.WriteFile(filepath.Join(l.Dir(), MemoryFileName), []byte("# Memory\n\nIntro prose.\n- The user likes tea.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	added, over, err := l.AddFacts(SharedScope, []string{"the user likes TEA!", "Lives in   Lisbon", "lives in lisbon.", "", "- Works\nremotely"})
	if err != nil || over {
		t.Fatal(err, over)
	}
	if want := []string{"Lives in Lisbon", "Works remotely"}; fmt.Sprint(added) != fmt.Sprint(want) {
		t.Errorf("added %q, want %q", added, want)
	}
	text, _ := l.ReadFacts(SharedScope)
	if !strings.HasPrefix(text, "# Memory\n\nIntro prose.\n- The user likes tea.\n- Lives in Lisbon\n") {
		t.Errorf("MEMORY.md = %q", text)
	}
	// A session's facts stay in its own file.
	if _, _, err := l.AddFacts("telegram:1", []string{"Prefers short answers"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := l.Facts("telegram:2"); len(f) != 0 {
		t.Errorf("another session sees %q", f)
	}
	if f, _ := l.Facts(SharedScope); strings.Contains(strings.Join(f, "|"), "short answers") {
		t.Error("a session fact reached MEMORY.md")
	}
	if f, _ := l.Facts("telegram:1"); len(f) != 1 {
		t.Errorf("session facts %q", f)
	}
	if _, _, err := l.AddFacts("../x", []string{"x"}); err == nil {
		t.Error("invalid scope accepted")
	}
}

func TestOverflowIsMovedNotCut(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	l := newLongTerm(t, &LongTermOptions{MaxBytes: 600, Now: func() time.Time { return now }})
	var facts []string
	for i := range 30 {
		facts = append(facts, fmt.Sprintf("fact number %d about the garden", i))
	}
	_, over, err := l.AddFacts(SharedScope, facts)
	if err != nil || !over {
		t.Fatalf("over=%v err=%v", over, err)
	}
	moved, err := l.SpillOverflow(SharedScope)
	if err != nil || moved == 0 {
		t.Fatalf("moved %d, %v", moved, err)
	}
	text, _ := l.ReadFacts(SharedScope)
	if len(text) > 600 || !strings.Contains(text, "fact number 29") || strings.Contains(text, "fact number 0 ") {
		t.Errorf("MEMORY.md after spill (%d bytes): %q", len(text), text)
	}
	hist, _ := os.ReadFile(l.HistoryPath())
	for i := range moved {
		if !strings.Contains(string(hist), fmt.Sprintf("- fact number %d about", i)) {
			t.Errorf("fact %d neither in MEMORY.md nor HISTORY.md", i)
		}
	}
	// Consolidation replaces the facts and keeps the old text searchable.
	if err := l.Consolidate(SharedScope, []string{"Many facts about the garden (numbers 0-29)."}); err != nil {
		t.Fatal(err)
	}
	if f, _ := l.Facts(SharedScope); len(f) != 1 {
		t.Errorf("after consolidate: %q", f)
	}
	res, err := l.Search("telegram:9", "fact number 29 garden", 3)
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Text+res[1].Text, "fact number 29") {
		t.Errorf("consolidated-away fact not searchable: %+v %v", res, err)
	}
	if err := l.Consolidate(SharedScope, []string{strings.Repeat("x", 499), strings.Repeat("y", 499)}); err == nil {
		t.Error("over-limit consolidation accepted")
	}
}

func TestHistorySearchIsolationAndRanking(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	l := newLongTerm(t, &LongTermOptions{Now: func() time.Time { return now }})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.AppendHistory("api:alice", "user: my passport number is X123\nassistant: noted"))
	must(l.AppendHistory("api:bob", "user: we picked the blue paint for the kitchen\nassistant: blue it is"))
	must(l.AppendHistory("api:bob", "user: the kitchen floor is oak\n## not a header\nassistant: ok"))
	_, _, err := l.AddFacts(SharedScope, []string{"The house has a blue kitchen door"})
	must(err)

	res, err := l.Search("api:bob", "blue kitchen", 10)
	must(err)
	if len(res) != 3 {
		t.Fatalf("results %+v", res)
	}
	if res[0].Source != "history" || !strings.Contains(res[0].Text, "blue paint") {
		t.Errorf("best result %+v", res[0])
	}
	for _, r := range res {
		if strings.Contains(r.Text, "passport") {
			t.Fatal("bob's search found alice's history")
		}
	}
	if res, _ := l.Search("api:bob", "floor", 1); len(res) != 1 || !strings.Contains(res[0].Text, "\n## not a header") {
		t.Errorf("header-like line: %+v", res)
	}
	if res, _ := l.Search("api:alice", "passport", 5); len(res) != 1 {
		t.Errorf("alice's own search: %+v", res)
	}
	if _, err := l.Search("api:bob", "the and of", 5); err == nil {
		t.Error("a query of stop words was accepted")
	}
}

func TestHistorySearchSurvivesDamage(t *testing.T) {
	l := newLongTerm(t, nil)
	var b strings.Builder
	b.WriteString("## garbage header\nloose text\n")
	b.WriteString("## 2026-01-01T00:00:00Z · api:x\nvalid \xff\xfe bytes and the word zebra\n\n")
	b.WriteString("## 2026-01-02T00:00:00Z · api:x\n" + strings.Repeat("long ", 400_000) + "zebra tail\n")
	if err := os.WriteFile(l.HistoryPath(), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := l.Search("api:x", "zebra", 5)
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, "\uFFFD") {
		t.Fatalf("results %+v, %v", res, err)
	}
}

func TestDreamConsolidation(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	l := newLongTerm(t, &LongTermOptions{DreamMode: DreamFull, Now: func() time.Time { return now }})
	topics := []string{"sourdough bread starter flour hydration", "kubernetes cluster deployment pods", "marathon training running pace"}
	for i := range 12 {
		key := "api:alice"
		if i%3 == 0 && i > 0 {
			key = "api:bob"
		}
		if err := l.AppendHistory(key, fmt.Sprintf("user: question %d about %s\nassistant: answer", i, topics[i%3])); err != nil {
			t.Fatal(err)
		}
	}
	st, err := l.DreamStatus()
	if err != nil || st.RawRecords != 12 || st.Mode != DreamFull {
		t.Fatalf("status %+v %v", st, err)
	}
	rep, err := l.ConsolidateDream()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 12 || rep.Insights == 0 {
		t.Fatalf("report %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(l.Dir(), DreamRawFile)); !os.IsNotExist(err) {
		t.Error("raw log not cleared")
	}
	alice, _ := l.Insights("api:alice")
	bob, _ := l.Insights("api:bob")
	if len(alice) == 0 || len(bob) == 0 {
		t.Fatalf("insights alice %d bob %d", len(alice), len(bob))
	}
	for _, in := range alice {
		if in.Key != "api:alice" {
			t.Fatal("insight mixes sessions")
		}
	}
	if rep.Promoted == 0 {
		t.Errorf("nothing promoted: %+v %+v", rep, alice)
	}
	if f, _ := l.Facts("api:alice"); len(f) == 0 || !strings.HasPrefix(f[0], "Recurring topic") {
		t.Errorf("alice facts %q", f)
	}
	if f, _ := l.Facts(SharedScope); len(f) != 0 {
		t.Errorf("promotion wrote shared memory: %q", f)
	}
	// Again: nothing new to do.
	if rep, _ := l.ConsolidateDream(); rep.Records != 0 || rep.Insights != 0 {
		t.Errorf("second run %+v", rep)
	}
}

func TestDreamCrashCostsARerunNotALoss(t *testing.T) {
	l := newLongTerm(t, &LongTermOptions{DreamMode: DreamRecord})
	for i := range 6 {
		if err := l.AppendHistory("api:a", fmt.Sprintf("user: tomato plants watering schedule %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	raw := filepath.Join(l.Dir(), DreamRawFile)
	data, _ := os.ReadFile(raw)
	// Simulate a crash after the raw log was taken and the insights were
	// half written: a processing file and a torn batch without marker.
	if err := os.Rename(raw, raw+dreamProcessingSuffix); err != nil {
		t.Fatal(err)
	}
	cons := filepath.Join(l.Dir(), DreamConsolidatedFile)
	if err := os.WriteFile(cons, []byte(`{"kind":"insight","batch":"torn","key":"api:a","text":"half"}`+"\n{\"kind\":\"ins"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A turn recorded after the crash goes to a fresh raw log.
	if err := l.AppendHistory("api:a", "user: unrelated later turn"); err != nil {
		t.Fatal(err)
	}
	st, _ := l.DreamStatus()
	if !st.Interrupted || st.RawRecords != 7 || st.Insights != 0 {
		t.Fatalf("status %+v", st)
	}
	rep, err := l.ConsolidateDream()
	if err != nil || !rep.Resumed || rep.Records != 6 || rep.Insights != 1 {
		t.Fatalf("resume %+v %v (raw had %d bytes)", rep, err, len(data))
	}
	ins, _ := l.Insights("api:a")
	if len(ins) != 1 || ins[0].Support != 6 {
		t.Fatalf("insights %+v", ins)
	}
	if rep, _ := l.ConsolidateDream(); rep.Records != 1 {
		t.Errorf("later turn not consolidated next: %+v", rep)
	}
}

func TestDecay(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	in := Insight{Confidence: 0.8, Last: now.Add(-DreamHalfLife)}
	for _, tt := range []struct {
		age  time.Duration
		want float64
	}{{0, 0.8}, {DreamHalfLife, 0.4}, {2 * DreamHalfLife, 0.2}, {-time.Hour, 0.8}} {
		in.Last = now.Add(-tt.age)
		if got := in.Decayed(now); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("age %v: %v, want %v", tt.age, got, tt.want)
		}
	}
}

func TestStaleInsightLosesToFreshFact(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	l := newLongTerm(t, &LongTermOptions{Now: func() time.Time { return now }})
	old := Insight{Kind: "insight", Batch: "b", Key: "api:a", Text: "user: violin lessons on tuesday", Terms: []string{"violin"}, Support: 5, Confidence: 1, Last: now.Add(-120 * 24 * time.Hour)}
	lines := mustJSON(t, old) + "\n" + mustJSON(t, Insight{Kind: "batch", Batch: "b"}) + "\n"
	if err := os.WriteFile(filepath.Join(l.Dir(), DreamConsolidatedFile), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.AddFacts("api:a", []string{"Violin lessons moved to thursday"}); err != nil {
		t.Fatal(err)
	}
	res, err := l.Search("api:a", "violin lessons", 5)
	if err != nil || len(res) != 2 || res[0].Source != "memory" || res[1].Source != "insight" {
		t.Fatalf("ranking %+v %v", res, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSearchOver100MBHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB HISTORY.md; runs without -short")
	}
	l := newLongTerm(t, nil)
	f, err := os.Create(l.HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Repeat("## 2026-01-01T00:00:00Z · api:big\nuser: filler words about nothing in particular\n\n", 12_000)
	for written := 0; written < 100<<20; written += len(block) {
		if _, err := f.WriteString(block); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteString("## 2026-02-01T00:00:00Z · api:big\nuser: the needle is a platypus\n\n")
	f.Close()
	res, err := l.Search("api:big", "platypus", 3)
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, "needle") {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestConsolidateIfDue(t *testing.T) {
	for _, tt := range []struct {
		mode string
		want bool
	}{{DreamRecord, false}, {DreamFull, true}} {
		l := newLongTerm(t, &LongTermOptions{DreamMode: tt.mode})
		if rep, err := l.ConsolidateIfDue(); err != nil || rep.Records != 0 {
			t.Fatalf("%s, nothing recorded: %+v %v", tt.mode, rep, err)
		}
		text := strings.Repeat("seedling greenhouse compost ", 40)
		for i := 0; !l.DreamDue(); i++ {
			if err := l.AppendHistory("api:g", fmt.Sprintf("user: %d %s", i, text)); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := l.ConsolidateIfDue()
		if err != nil || (rep.Records > 0) != tt.want {
			t.Errorf("%s: %+v %v", tt.mode, rep, err)
		}
	}
}
