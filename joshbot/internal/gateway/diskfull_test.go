package gateway

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// fullDisk is the session store on a disk that fills up and is freed
// again: while full is set, every write fails with ENOSPC, as the
// filesystem would.
type fullDisk struct {
	agent.Sessions
	full atomic.Bool
}

func (d *fullDisk) fail(sess *memory.Session) error {
	if d.full.Load() {
		return &os.PathError{Op: "write", Path: "sessions/" + sess.Key + ".jsonl", Err: syscall.ENOSPC}
	}
	return nil
}

func (d *fullDisk) Save(sess *memory.Session) error {
	if err := d.fail(sess); err != nil {
		return err
	}
	return d.Sessions.Save(sess)
}

func (d *fullDisk) Stage(sess *memory.Session) error {
	if err := d.fail(sess); err != nil {
		return err
	}
	return d.Sessions.Stage(sess)
}

// runGatewayOn runs a gateway whose session store is wrapped by wrap.
func runGatewayOn(t *testing.T, cfgPath string, wrap func(agent.Sessions) agent.Sessions, extra ...channels.Channel) (stop func() string) {
	t.Helper()
	w := &syncWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := runtime.Load(ctx, &runtime.Options{
		ConfigPath: cfgPath, Home: filepath.Dir(cfgPath), WrapTools: runtime.ProgressTools,
		Logger: slog.New(slog.NewTextHandler(w, nil)), WrapSessions: wrap,
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer rt.Close()
		done <- New(rt, &Options{Grace: time.Second, Channels: extra}).Run(ctx)
	}()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("gateway: %v", err)
			}
		})
		return w.String()
	}
	t.Cleanup(func() { stop() })
	return stop
}

// TestGatewayDiskFullDeliversAndTellsOnce: when the session cannot be
// saved because the disk is full, every answer is still delivered, the
// user is told once that it was not saved (not on every turn), the turn
// is not run again, and after a save succeeds a new failure is told
// again.
func TestGatewayDiskFullDeliversAndTellsOnce(t *testing.T) {
	for _, live := range []bool{false, true} {
		name := "plain"
		if live {
			name = "live"
		}
		t.Run(name, func(t *testing.T) {
			clearProviderEnv(t)
			srv := providertest.NewServer(t)
			srv.Enqueue(providertest.Text("one"), providertest.Text("two"), providertest.Text("three"),
				providertest.Text("four"), providertest.Text("five"))
			cfgPath := gatewayConfig(t, srv, "42")
			disk := &fullDisk{}
			disk.full.Store(true)
			f := channeltest.NewFakeNamed("telegram")
			var ch channels.Channel = f
			if !live {
				ch = plain{f}
			}
			stop := runGatewayOn(t, cfgPath, func(s agent.Sessions) agent.Sessions { disk.Sessions = s; return disk }, ch)
			answers := func(r channeltest.Record) []string {
				var out []string
				for _, s := range r.Sent {
					out = append(out, s.Message.Text)
				}
				for _, s := range r.Streams {
					if s.Finished {
						out = append(out, s.Final)
					}
				}
				return out
			}
			await := func(n int) []string {
				t.Helper()
				rec := f.Await(t, "answers", func(r channeltest.Record) bool { return len(answers(r)) >= n })
				return answers(rec)
			}
			inject := func(id, text string) {
				f.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: text, MessageID: id, IsDirect: true})
			}
			for i, q := range []string{"a", "b", "c"} {
				inject(q, q)
				await(i + 1)
			}
			disk.full.Store(false)
			inject("d", "d")
			await(4)
			disk.full.Store(true)
			inject("e", "e")
			await(5)
			time.Sleep(200 * time.Millisecond)
			stop()
			got := answers(f.Record())
			if len(got) != 5 {
				t.Fatalf("answers = %q, want 5 (no turn run twice)", got)
			}
			told := 0
			for i, a := range got {
				want := []string{"one", "two", "three", "four", "five"}[i]
				if !strings.HasPrefix(a, want) {
					t.Errorf("answer %d = %q, want it to start with %q", i, a, want)
				}
				if strings.Contains(a, "disk is full") {
					told++
					if i != 0 && i != 4 {
						t.Errorf("answer %d told about the full disk again: %q", i, a)
					}
				}
			}
			if told != 2 {
				t.Errorf("told about the full disk %d times, want 2 (once, and once more after a save succeeded): %q", told, got)
			}
			if n := len(srv.Requests()); n != 5 {
				t.Errorf("provider asked %d times, want 5 (a not-saved turn is not retried)", n)
			}
		})
	}
}
