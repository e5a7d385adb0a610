package channels_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
)

func newRouter(t *testing.T, dir string, opts *channels.RouterOptions) *channels.Router {
	t.Helper()
	if opts == nil {
		opts = &channels.RouterOptions{}
	}
	opts.Dir = dir
	if opts.AllowFrom == nil {
		opts.AllowFrom = map[string][]string{"telegram": {"42", "@Alice"}}
	}
	r, err := channels.NewRouter(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// collector records what a handler was given.
type collector struct {
	mu   sync.Mutex
	seen []channels.Inbound
	ch   chan channels.Inbound
}

func newCollector() *collector { return &collector{ch: make(chan channels.Inbound, 1000)} }

func (c *collector) handle(_ context.Context, inb channels.Inbound) {
	c.mu.Lock()
	c.seen = append(c.seen, inb)
	c.mu.Unlock()
	c.ch <- inb
}

func (c *collector) wait(t *testing.T, n int) []channels.Inbound {
	t.Helper()
	var got []channels.Inbound
	for len(got) < n {
		select {
		case inb := <-c.ch:
			got = append(got, inb)
		case <-time.After(5 * time.Second):
			t.Fatalf("handled %d of %d messages", len(got), n)
		}
	}
	return got
}

func (c *collector) none(t *testing.T) {
	t.Helper()
	select {
	case inb := <-c.ch:
		t.Fatalf("unexpected turn for %+v", inb)
	case <-time.After(50 * time.Millisecond):
	}
}

func runRouter(t *testing.T, r *channels.Router, h, interrupted channels.Handler) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx, h, interrupted); close(done) }()
	return func() { cancel(); <-done }
}

func dm(id, from, text string) channels.Inbound {
	return channels.Inbound{Channel: "telegram", Conversation: from, Principal: from, Text: text, MessageID: id, IsDirect: true}
}

func TestRouterDeniesByDefault(t *testing.T) {
	r := newRouter(t, t.TempDir(), &channels.RouterOptions{AllowFrom: map[string][]string{}, Channels: []string{"telegram"}})
	c := newCollector()
	defer runRouter(t, r, c.handle, nil)()
	if err := r.Deliver(context.Background(), dm("1", "42", "hi")); err != nil {
		t.Fatal(err)
	}
	c.none(t)
	w := r.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], `RouterOptions.AllowFrom["telegram"] is empty`) {
		t.Fatalf("warnings = %q", w)
	}
	// A program names its own setting.
	r2 := newRouter(t, t.TempDir(), &channels.RouterOptions{AllowFrom: map[string][]string{}, Channels: []string{"telegram"},
		AllowFromSetting: func(ch string) string { return "chats." + ch + ".allowed" }})
	if w := r2.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "chats.telegram.allowed is empty") {
		t.Fatalf("warnings = %q", w)
	}
}

func TestRouterAllowlistAndAddressing(t *testing.T) {
	r := newRouter(t, t.TempDir(), &channels.RouterOptions{RespondToAll: map[string]bool{"discord": true},
		AllowFrom: map[string][]string{"telegram": {"42", "@Alice"}, "discord": {"7"}}})
	c := newCollector()
	defer runRouter(t, r, c.handle, nil)()
	ctx := context.Background()
	stranger := dm("1", "666", "let me in")
	group := channels.Inbound{Channel: "telegram", Conversation: "-100", Principal: "42", Text: "chatter", MessageID: "2"}
	mentioned := group
	mentioned.MessageID, mentioned.Mentioned, mentioned.Text = "3", true, "@bot help"
	handle := dm("4", "@alice", "by handle")
	discordGroup := channels.Inbound{Channel: "discord", Conversation: "g", Principal: "7", Text: "all", MessageID: "5"}
	signed := channels.Inbound{Channel: "github", Conversation: "repo", Principal: "octo", Text: "push", MessageID: "6", Trusted: true, Agent: "reviewer"}
	sneaky := dm("7", "42", "pick agent")
	sneaky.Agent = "admin"
	for _, inb := range []channels.Inbound{stranger, group, mentioned, handle, discordGroup, signed, sneaky} {
		if err := r.Deliver(ctx, inb); err != nil {
			t.Fatal(err)
		}
	}
	got := c.wait(t, 5)
	c.none(t)
	texts := map[string]channels.Inbound{}
	for _, inb := range got {
		texts[inb.Text] = inb
	}
	for _, want := range []string{"@bot help", "by handle", "all", "push", "pick agent"} {
		if _, ok := texts[want]; !ok {
			t.Errorf("%q did not run", want)
		}
	}
	if texts["push"].Agent != "reviewer" || texts["pick agent"].Agent != "" {
		t.Errorf("agent field: trusted %q, untrusted %q", texts["push"].Agent, texts["pick agent"].Agent)
	}
}

func TestRouterDedupSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	r := newRouter(t, dir, nil)
	c := newCollector()
	stop := runRouter(t, r, c.handle, nil)
	ctx := context.Background()
	r.Deliver(ctx, dm("100", "42", "once"))
	r.Deliver(ctx, dm("100", "42", "once"))
	c.wait(t, 1)
	c.none(t)
	stop()
	r.Close()

	r2 := newRouter(t, dir, nil)
	c2 := newCollector()
	defer runRouter(t, r2, c2.handle, nil)()
	r2.Deliver(ctx, dm("100", "42", "once"))
	c2.none(t)
	r2.Deliver(ctx, dm("101", "42", "new"))
	if got := c2.wait(t, 1); got[0].Text != "new" {
		t.Fatalf("got %+v", got)
	}
}

func TestRouterInboxSurvivesCrashBeforeRun(t *testing.T) {
	dir := t.TempDir()
	r := newRouter(t, dir, nil)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := r.Deliver(ctx, dm(fmt.Sprint(i), "42", fmt.Sprint("msg ", i))); err != nil {
			t.Fatal(err)
		}
	}
	r.Close() // crash: acknowledged, never run

	r2 := newRouter(t, dir, nil)
	c := newCollector()
	defer runRouter(t, r2, c.handle, nil)()
	got := c.wait(t, 3)
	for i, inb := range got {
		if inb.Text != fmt.Sprint("msg ", i) {
			t.Fatalf("order after restart: %d is %q", i, inb.Text)
		}
	}
	r2.Deliver(ctx, dm("1", "42", "msg 1"))
	c.none(t)
}

func TestRouterCutOffTurnIsReportedNotRerun(t *testing.T) {
	dir := t.TempDir()
	r := newRouter(t, dir, &channels.RouterOptions{Grace: time.Millisecond})
	started := make(chan struct{})
	release := make(chan struct{})
	stop := runRouter(t, r, func(ctx context.Context, inb channels.Inbound) {
		close(started)
		<-release // the process "dies" here: the turn never returns in time
	}, nil)
	r.Deliver(context.Background(), dm("9", "42", "long job"))
	<-started
	// Simulate a crash: copy the state while the turn is running.
	crash := t.TempDir()
	copyDir(t, dir, crash)
	close(release)
	stop()

	r2 := newRouter(t, crash, nil)
	c := newCollector()
	var interrupted []channels.Inbound
	var mu sync.Mutex
	defer runRouter(t, r2, c.handle, func(_ context.Context, inb channels.Inbound) {
		mu.Lock()
		interrupted = append(interrupted, inb)
		mu.Unlock()
	})()
	c.none(t)
	mu.Lock()
	defer mu.Unlock()
	if len(interrupted) != 1 || interrupted[0].Text != "long job" {
		t.Fatalf("interrupted = %+v", interrupted)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRouterOrdersPerConversationAndBoundsWorkers(t *testing.T) {
	const senders, each, workers = 12, 15, 3
	allow := []string{}
	for s := 0; s < senders; s++ {
		allow = append(allow, fmt.Sprint("u", s))
	}
	r := newRouter(t, t.TempDir(), &channels.RouterOptions{Workers: workers, AllowFrom: map[string][]string{"telegram": allow}})
	var inFlight, peak atomic.Int32
	c := newCollector()
	defer runRouter(t, r, func(ctx context.Context, inb channels.Inbound) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		inFlight.Add(-1)
		c.handle(ctx, inb)
	}, nil)()
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				from := fmt.Sprint("u", s)
				if err := r.Deliver(context.Background(), dm(fmt.Sprint(from, "-", i), from, fmt.Sprint(i))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := c.wait(t, senders*each)
	next := map[string]int{}
	for _, inb := range got {
		if want := fmt.Sprint(next[inb.Principal]); inb.Text != want {
			t.Fatalf("%s: got message %s, want %s", inb.Principal, inb.Text, want)
		}
		next[inb.Principal]++
	}
	if p := peak.Load(); p > workers {
		t.Fatalf("%d turns ran at once, limit %d", p, workers)
	}
}

func TestRouterGracefulShutdownLetsTurnsFinish(t *testing.T) {
	dir := t.TempDir()
	r := newRouter(t, dir, &channels.RouterOptions{Grace: 5 * time.Second})
	started := make(chan struct{})
	var finished atomic.Bool
	stop := runRouter(t, r, func(ctx context.Context, inb channels.Inbound) {
		close(started)
		select {
		case <-time.After(100 * time.Millisecond):
			finished.Store(true)
		case <-ctx.Done():
		}
	}, nil)
	r.Deliver(context.Background(), dm("1", "42", "x"))
	<-started
	stop()
	if !finished.Load() {
		t.Fatal("an in-flight turn was cut off inside the grace period")
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "inbox")); len(entries) != 0 {
		t.Fatalf("inbox not empty after a finished turn: %v", entries)
	}
}

func TestRouterSetsAsideUnreadableRecords(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "inbox"), 0o700)
	os.WriteFile(filepath.Join(dir, "inbox", "00000000000000000001.json"), []byte("{torn"), 0o600)
	r := newRouter(t, dir, nil)
	c := newCollector()
	defer runRouter(t, r, c.handle, nil)()
	c.none(t)
	if b, err := os.ReadFile(filepath.Join(dir, "inbox", "00000000000000000001.json.bad")); err != nil || string(b) != "{torn" {
		t.Fatalf("bad record not kept: %q %v", b, err)
	}
}

// A dedup log line far past any key the router writes (a 2 MiB one here)
// must not stop the gateway: the file is moved aside as .corrupt with a
// warning, the keys around the bad line are kept, and the router starts.
func TestRouterQuarantinesDedupLogWithHugeLine(t *testing.T) {
	dir := t.TempDir()
	huge := strings.Repeat("x", 2<<20)
	orig := "telegram\t100\n" + huge + "\ntelegram\t101\n"
	if err := os.WriteFile(filepath.Join(dir, "dedup.log"), []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	var mu sync.Mutex
	r := newRouter(t, dir, &channels.RouterOptions{Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	c := newCollector()
	defer runRouter(t, r, c.handle, nil)()
	ctx := context.Background()
	for _, id := range []string{"100", "101"} {
		if err := r.Deliver(ctx, dm(id, "42", "old")); err != nil {
			t.Fatal(err)
		}
	}
	c.none(t)
	r.Deliver(ctx, dm("102", "42", "new"))
	if got := c.wait(t, 1); got[0].Text != "new" {
		t.Fatalf("got %+v", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "dedup.log.corrupt"))
	if err != nil || string(b) != orig {
		t.Fatalf("the unreadable dedup log was not kept as .corrupt (%d bytes, %v)", len(b), err)
	}
	if st, err := os.Stat(filepath.Join(dir, "dedup.log")); err != nil || st.Size() > 1024 {
		t.Fatalf("dedup.log not rewritten with the good keys only: %v %v", st, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "dedup.log.corrupt") || !strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("no warning naming the quarantined file:\n%s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
