package agent_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// The background compaction tests use a threshold of 1000 estimated tokens
// (about 4000 bytes). seedGrown's session with the next question is about
// 530 tokens, under it; grownReply takes it to about 1030, over it; the
// session compacted after that (summary, the last six messages) is about
// 550, under it again, and most of what goes is in the older part, so
// the "too little to summarize" rule does not apply.
const bgThreshold = 1000

var grownReply = strings.Repeat("a long answer ", 143) // 2002 bytes

// seedGrown stores three long old exchanges and two short recent ones.
func seedGrown(t *testing.T, store *memory.Store, key string) {
	t.Helper()
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var msgs []memory.Message
	for i := range 3 {
		n := string(rune('0' + i))
		msgs = append(msgs,
			memory.Message{Role: "user", Content: "OLD-" + n + " question " + strings.Repeat("o", 300)},
			memory.Message{Role: "assistant", Content: "OLD-" + n + " answer " + strings.Repeat("o", 300)})
	}
	for _, n := range []string{"A", "B"} {
		msgs = append(msgs,
			memory.Message{Role: "user", Content: "recent question " + n},
			memory.Message{Role: "assistant", Content: "recent answer " + n})
	}
	for i := range msgs {
		msgs[i].Time = ts.Add(time.Duration(i) * time.Minute)
	}
	if err := store.Save(&memory.Session{Key: key, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

func isSummaryRequest(r providertest.Request) bool {
	return len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "You condense the earlier part")
}

// contents lists the stored messages' text, a compaction record as
// "summary:" and its text.
func contents(s *memory.Session) []string {
	var out []string
	for _, m := range s.Messages {
		if m.Kind == memory.KindCompaction {
			out = append(out, "summary:"+m.Content)
			continue
		}
		out = append(out, m.Content)
	}
	return out
}

// checkCompactedGrown checks the session seedGrown started after one
// background compaction and the turns that followed it.
func checkCompactedGrown(t *testing.T, store *memory.Store, key, summary string, after ...string) {
	t.Helper()
	sess, err := store.Load(key)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"summary:" + summary, "recent question A", "recent answer A", "recent question B", "recent answer B",
		"my newest question", grownReply}, after...)
	if got := contents(sess); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stored session:\n got %q\nwant %q", got, want)
	}
	path, _ := store.ArchivePath(key)
	data, err := os.ReadFile(path)
	if err != nil || strings.Count(string(data), "\n") != 6 || strings.Count(string(data), "OLD-") != 6 {
		t.Errorf("archive %q %v", data, err)
	}
}

func TestCompactionAfterTheTurnThatCrossesTheThreshold(t *testing.T) {
	lt, err := memory.OpenLongTerm(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Learning after every turn (LearnEvery 1) keeps the learning step
	// before the compaction in the same background run; "my" makes the
	// message worth learning from.
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{CompactionThreshold: bgThreshold, LongTerm: lt, LearnEvery: 1}})
	ctx := context.Background()
	seedGrown(t, store, "cli:g")
	srv.Enqueue(providertest.Text(grownReply), providertest.Text(`{"facts": []}`), providertest.Text("BG-SUMMARY"))
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:g", Text: "my newest question"})
	if err != nil || reply.Text != grownReply {
		t.Fatalf("reply %+v %v", reply, err)
	}
	a.Wait()
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the turn, the learning step and the summary", len(reqs))
	}
	// The turn's request is the first: the session was under the
	// threshold when it started, and the reply took it over.
	if isSummaryRequest(reqs[0]) || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "my newest question" {
		t.Errorf("first request is not the turn: %+v", reqs[0].Messages)
	}
	if !strings.Contains(reqs[1].Messages[0].Content, "long-term memory") {
		t.Errorf("second request is not the learning step: %s", reqs[1].Messages[0].Content)
	}
	// The summary covers the older part and leaves the last six messages,
	// the finished turn among them, so the next turn has nothing to do.
	if !isSummaryRequest(reqs[2]) || !strings.Contains(reqs[2].Messages[1].Content, "OLD-0 question") ||
		strings.Contains(reqs[2].Messages[1].Content, "recent question A") {
		t.Errorf("third request is not the expected summary: %+v", reqs[2].Messages)
	}
	checkCompactedGrown(t, store, "cli:g", "BG-SUMMARY")
	if m, err := store.LoadMeta("cli:g"); err != nil || m.Compactions != 1 || m.ArchivedMessages != 6 {
		t.Errorf("meta %+v %v: the compaction counters must land", m, err)
	}

	// The next turn sends its request at once, with the summary.
	srv.Enqueue(providertest.Text("second answer"), providertest.Text(`{"facts": []}`))
	reply, err = a.Process(ctx, agent.Request{SessionKey: "cli:g", Text: "my second question"})
	if err != nil || reply.Text != "second answer" {
		t.Fatalf("second reply %+v %v", reply, err)
	}
	a.Wait()
	reqs = srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests after the second turn, want 5 (no second compaction)", len(reqs))
	}
	turn := reqs[3]
	if isSummaryRequest(turn) || !strings.Contains(turn.Messages[0].Content, "BG-SUMMARY") {
		t.Errorf("second turn's request: %s", turn.Messages[0].Content)
	}
	if c := allContent(turn.Messages); strings.Contains(c, "OLD-") || !strings.Contains(c, "my newest question") || !strings.Contains(c, "my second question") {
		t.Errorf("second turn's request content:\n%s", c)
	}
	checkCompactedGrown(t, store, "cli:g", "BG-SUMMARY", "my second question", "second answer")
}

func TestBackgroundCompactionFailureKeepsSession(t *testing.T) {
	var logs syncBuffer
	a, srv, store, _ := setup(t, &agent.Options{Logger: logTo(&logs), Memory: agent.MemoryOptions{CompactionThreshold: bgThreshold, DisableLearning: true}})
	ctx := context.Background()
	seedGrown(t, store, "cli:e")
	srv.Enqueue(providertest.Text(grownReply), providertest.Error(400, "summary refused"))
	if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:e", Text: "my newest question"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if l := logs.String(); !strings.Contains(l, "compaction failed; the session is unchanged and the next turn tries again") || !strings.Contains(l, "summary refused") {
		t.Errorf("no log line for the failed background compaction: %s", l)
	}
	sess, _ := store.Load("cli:e")
	if got := contents(sess); len(got) != 12 || !strings.HasPrefix(got[0], "OLD-0") || got[11] != grownReply {
		t.Errorf("session changed: %q", got)
	}
	if path, _ := store.ArchivePath("cli:e"); fileExists(path) {
		t.Error("an archive was written by a failed compaction")
	}

	// The next turn works; the session still being over the threshold, its
	// fallback compacts before the request.
	srv.Enqueue(providertest.Text("FALLBACK-SUMMARY"), providertest.Text("second answer"))
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:e", Text: "second question"})
	if err != nil || reply.Text != "second answer" {
		t.Fatalf("second reply %+v %v", reply, err)
	}
	a.Wait()
	reqs := srv.Requests()
	if len(reqs) != 4 || !isSummaryRequest(reqs[2]) || !strings.Contains(reqs[3].Messages[0].Content, "FALLBACK-SUMMARY") {
		t.Fatalf("%d requests; want turn, failed summary, fallback summary, turn with the summary", len(reqs))
	}
	checkCompactedGrown(t, store, "cli:e", "FALLBACK-SUMMARY", "second question", "second answer")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestTurnWaitsForBackgroundCompaction(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{CompactionThreshold: bgThreshold, DisableLearning: true}})
	ctx := context.Background()
	seedGrown(t, store, "cli:w")

	started, release := make(chan struct{}), make(chan struct{})
	var startOnce, releaseOnce sync.Once
	// Registered after setup, so it runs before setup's Wait: a failing
	// test must not leave the summary blocked.
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	srv.Enqueue(providertest.Text(grownReply))
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		if !isSummaryRequest(r) {
			return providertest.Text("second answer")
		}
		startOnce.Do(func() { close(started) })
		<-release
		return providertest.Text("SLOW-SUMMARY")
	})

	if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:w", Text: "my newest question"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no background summary request after the turn that crossed the threshold")
	}

	type result struct {
		reply *agent.Reply
		err   error
	}
	done := make(chan result, 1)
	go func() {
		r, err := a.Process(ctx, agent.Request{SessionKey: "cli:w", Text: "second question"})
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the second turn ran during the compaction: %+v %v", r.reply, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests while the summary is pending, want 2", n)
	}

	releaseOnce.Do(func() { close(release) })
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the second turn did not finish after the compaction")
	}
	if r.err != nil || r.reply.Text != "second answer" {
		t.Fatalf("second reply %+v %v", r.reply, r.err)
	}
	a.Wait()
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the turn, the summary and the second turn", len(reqs))
	}
	if turn := reqs[2]; isSummaryRequest(turn) || !strings.Contains(turn.Messages[0].Content, "SLOW-SUMMARY") ||
		strings.Contains(allContent(turn.Messages), "OLD-") {
		t.Errorf("the second turn did not see the compacted session: %+v", turn.Messages)
	}
	checkCompactedGrown(t, store, "cli:w", "SLOW-SUMMARY", "second question", "second answer")
	if m, err := store.LoadMeta("cli:w"); err != nil || m.Compactions != 1 {
		t.Errorf("meta %+v %v", m, err)
	}
}

// blockSummaries makes srv answer the turn with grownReply and hold every
// summary request until the returned release is called; started is closed
// when the first summary request arrives.
func blockSummaries(t *testing.T, srv *providertest.Server) (started <-chan struct{}, release func()) {
	t.Helper()
	start, rel := make(chan struct{}), make(chan struct{})
	var startOnce, releaseOnce sync.Once
	release = func() { releaseOnce.Do(func() { close(rel) }) }
	// Registered after setup, so it runs before setup's Wait.
	t.Cleanup(release)
	srv.Enqueue(providertest.Text(grownReply))
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		if !isSummaryRequest(r) {
			return providertest.Text("unexpected request")
		}
		startOnce.Do(func() { close(start) })
		<-rel
		return providertest.Text("LATE-SUMMARY")
	})
	return start, release
}

func TestShutdownAbandonsAPendingCompaction(t *testing.T) {
	var logs syncBuffer
	a, srv, store, _ := setup(t, &agent.Options{Logger: logTo(&logs), Memory: agent.MemoryOptions{CompactionThreshold: bgThreshold, DisableLearning: true}})
	seedGrown(t, store, "cli:s")
	started, _ := blockSummaries(t, srv)
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:s", Text: "my newest question"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no background summary request")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err != context.DeadlineExceeded {
			t.Errorf("Shutdown = %v, want the context's deadline error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown still waits on the summary after its context ended")
	}
	if l := logs.String(); !strings.Contains(l, "compaction abandoned") || strings.Contains(l, "compaction failed") {
		t.Errorf("want an info line for the abandoned compaction, not a failure: %s", l)
	}
	sess, _ := store.Load("cli:s")
	if got := contents(sess); len(got) != 12 || !strings.HasPrefix(got[0], "OLD-0") || got[11] != grownReply {
		t.Errorf("an abandoned compaction changed the session: %q", got)
	}
	if path, _ := store.ArchivePath("cli:s"); fileExists(path) {
		t.Error("an abandoned compaction wrote an archive")
	}
	if m, err := store.LoadMeta("cli:s"); err != nil || m.Compactions != 0 {
		t.Errorf("meta %+v %v, want no compaction counted", m, err)
	}
}

func TestShutdownLetsTheModelFinishWithinItsBound(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{CompactionThreshold: bgThreshold, DisableLearning: true}})
	seedGrown(t, store, "cli:f")
	started, release := blockSummaries(t, srv)
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:f", Text: "my newest question"}); err != nil {
		t.Fatal(err)
	}
	<-started
	time.AfterFunc(50*time.Millisecond, release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v with time to spare", err)
	}
	checkCompactedGrown(t, store, "cli:f", "LATE-SUMMARY")
	// Nothing is left running: a second Shutdown returns at once.
	if err := a.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown = %v", err)
	}
}
