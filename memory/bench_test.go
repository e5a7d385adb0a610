package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchMessages builds a conversation with a realistic mix of roles, tool
// calls and message sizes.
func benchMessages(n int) []Message {
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 4)
	msgs := make([]Message, 0, n)
	for i := range n {
		m := Message{Time: ts.Add(time.Duration(i) * time.Second)}
		switch i % 4 {
		case 0:
			m.Role, m.Content = "user", text
		case 1:
			m.Role = "assistant"
			m.ToolCalls = []ToolCall{{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: `{"path":"notes/todo.md"}`}}
		case 2:
			m.Role, m.ToolCallID, m.Name, m.Content = "tool", fmt.Sprint("call_", i-1), "read_file", text+text
		case 3:
			m.Role, m.Content = "assistant", text
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// BenchmarkLoad10k decodes a 10,000-message session every time, as the
// first Load after a start does (the parsed-session cache is off).
func BenchmarkLoad10k(b *testing.B) { benchmarkLoad(b, 10_000, false) }

// BenchmarkLoad500 and BenchmarkLoad500Unchanged load a session of the
// size compaction keeps a conversation near (about 500 messages), decoded
// each time and recognised unchanged by the cache, as a gateway's next
// turn finds it.
func BenchmarkLoad500(b *testing.B)          { benchmarkLoad(b, 500, false) }
func BenchmarkLoad500Unchanged(b *testing.B) { benchmarkLoad(b, 500, true) }

func benchmarkLoad(b *testing.B, n int, cached bool) {
	s, err := NewStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if !cached {
		s.cache = nil
	}
	if err := s.Save(&Session{Key: "api:bench", Messages: benchMessages(n)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sess, err := s.Load("api:bench")
		if err != nil || len(sess.Messages) != n {
			b.Fatalf("loaded %d messages, err %v", len(sess.Messages), err)
		}
	}
}

func BenchmarkSave(b *testing.B) {
	s, err := NewStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	sess := &Session{Key: "api:bench", Messages: benchMessages(200)}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWords is a vocabulary for generated text, large enough that TF-IDF
// and BM25 see realistic term statistics.
var benchWords = func() []string {
	base := strings.Fields(`garden tomato kitchen paint invoice meeting travel flight hotel budget report deploy server
	database backup password router printer recipe bread coffee running marathon violin piano lesson school doctor
	dentist insurance taxes mortgage car repair bicycle holiday birthday gift wedding project deadline review code
	test release bug feature design email calendar weather rain snow summer winter book movie music podcast news`)
	var out []string
	for _, a := range base {
		out = append(out, a)
		for _, b := range base[:8] {
			out = append(out, a+b)
		}
	}
	return out
}()

func benchText(rng *rand.Rand, words int) string {
	var b strings.Builder
	topic := rng.IntN(40)
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		// Words cluster around a topic so that consolidation finds
		// structure, with noise from the whole vocabulary.
		if rng.IntN(3) > 0 {
			b.WriteString(benchWords[(topic*9+rng.IntN(9))%len(benchWords)])
		} else {
			b.WriteString(benchWords[rng.IntN(len(benchWords))])
		}
	}
	return b.String()
}

func BenchmarkMemorySearch50MB(b *testing.B) {
	l := newLongTerm(b, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	f, err := os.Create(l.HistoryPath())
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var size int
	for i := 0; size < 50<<20; i++ {
		key := "api:bench"
		if i%5 == 0 {
			key = "api:other"
		}
		n, _ := fmt.Fprintf(w, "## %s · %s\nuser: %s\nassistant: %s\n\n", ts.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), key, benchText(rng, 30), benchText(rng, 60))
		size += n
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		res, err := l.Search("api:bench", "violin lesson tuesday", 8)
		if err != nil || len(res) == 0 {
			b.Fatalf("%d results, %v", len(res), err)
		}
	}
}

func benchmarkDream(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(3, 4))
	recs := make([]dreamRecord, n)
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range recs {
		recs[i] = dreamRecord{Time: ts.Add(time.Duration(i) * time.Minute), Key: fmt.Sprintf("api:u%d", i%4), Text: benchText(rng, 40)}
	}
	var buf bytes.Buffer
	for i := range recs {
		line, _ := json.Marshal(recs[i])
		buf.Write(line)
		buf.WriteByte('\n')
	}
	b.ReportAllocs()
	insights := 0
	for b.Loop() {
		b.StopTimer()
		l := newLongTerm(b, nil)
		if err := os.WriteFile(filepath.Join(l.Dir(), DreamRawFile), buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := l.ConsolidateDream()
		if err != nil || rep.Records != n {
			b.Fatalf("%+v %v", rep, err)
		}
		insights = rep.Insights
	}
	b.ReportMetric(float64(insights), "insights")
}

func BenchmarkDreamConsolidate1k(b *testing.B)  { benchmarkDream(b, 1_000) }
func BenchmarkDreamConsolidate10k(b *testing.B) { benchmarkDream(b, 10_000) }
func BenchmarkDreamConsolidate50k(b *testing.B) { benchmarkDream(b, 50_000) }

// BenchmarkSaveTurn is a turn's two writes on a 200-message session: the
// user's message staged, then the answer saved durably.
func BenchmarkSaveTurn(b *testing.B) {
	s, err := NewStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	sess := &Session{Key: "api:bench", Messages: benchMessages(200)}
	if err := s.Save(sess); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(sess.Messages) > 260 {
			sess.Messages = sess.Messages[:200]
		}
		sess.Messages = append(sess.Messages, Message{Role: "user", Content: "a question", Time: time.Now()})
		if err := s.Stage(sess); err != nil {
			b.Fatal(err)
		}
		sess.Messages = append(sess.Messages, Message{Role: "assistant", Content: "an answer", Time: time.Now()})
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageNewSession is the first write of a new conversation, as
// every request of the serve bench makes: its user message staged in a
// new session file, before the model answers.
func BenchmarkStageNewSession(b *testing.B) {
	s, err := NewStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		sess := &Session{Key: fmt.Sprintf("api:seq-%d", i), Messages: []Message{{Role: "user", Content: "hello", Time: time.Now()}}}
		if err := s.Stage(sess); err != nil {
			b.Fatal(err)
		}
	}
}
