package cli

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestConcurrentOneShotsKeepEveryTurn runs 20 `joshbot agent -m` processes
// of the real binary at once on one session. Every run prints its answer,
// and every turn (the question and its answer, side by side) must be in
// the session afterwards: turns lost 0.
func TestConcurrentOneShotsKeepEveryTurn(t *testing.T) {
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		return providertest.Reply{Content: "answer to " + last, Delay: 5 * time.Millisecond}
	})
	cfgPath := scriptedConfig(t, srv)
	const runs = 20
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := fmt.Sprintf("question %d", i)
			cmd := exec.Command(bin, "--config", cfgPath, "agent", "-m", q)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				errs <- fmt.Errorf("run %d: %v\n%s", i, err, stderr.String())
				return
			}
			if got := strings.TrimSpace(stdout.String()); got != "answer to "+q {
				errs <- fmt.Errorf("run %d printed %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	store, err := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.Load(defaultSession)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := 0; i+1 < len(sess.Messages); i++ {
		m, next := sess.Messages[i], sess.Messages[i+1]
		if m.Role == "user" && next.Role == "assistant" && next.Content == "answer to "+m.Content {
			kept++
		}
	}
	if lost := runs - kept; lost != 0 || len(sess.Messages) != 2*runs {
		t.Fatalf("turns lost: %d of %d (%d messages in the session)", lost, runs, len(sess.Messages))
	}
	t.Logf("turns lost: 0 of %d", runs)
}

// TestContinueStaysOnTheCLI: while a gateway keeps a Telegram conversation
// newer than the CLI's, `agent -c` continues the CLI's own conversation;
// naming a session with -s continues that one instead.
func TestContinueStaysOnTheCLI(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfg := scriptedConfig(t, srv)
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfg), "sessions"))
	seedSessions(t, store)
	// The gateway's conversation is the most recent one.
	if _, err := store.Append("telegram:42", memory.Message{Role: "user", Content: "newest telegram message"}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("back on the CLI"))
	r := runCLI(t, "", "--config", cfg, "agent", "-c", "-m", "where were we?")
	if r.code != 0 || !strings.Contains(r.stderr, "continuing cli:default") {
		t.Fatalf("-c did not continue the CLI's conversation: %+v", r)
	}
	if sess, _ := store.Load("telegram:42"); len(sess.Messages) != 5 {
		t.Errorf("-c wrote into the Telegram session: %d messages", len(sess.Messages))
	}
	srv.Enqueue(providertest.Text("on telegram"))
	r = runCLI(t, "", "--config", cfg, "agent", "-c", "-s", "telegram:42", "-m", "and here?")
	if r.code != 0 || !strings.Contains(r.stderr, "continuing telegram:42") {
		t.Fatalf("-c -s telegram:42: %+v", r)
	}
	// Five, the interrupted marker for the unanswered one, and the turn.
	if sess, _ := store.Load("telegram:42"); len(sess.Messages) != 8 {
		t.Errorf("-c -s did not continue the named session: %d messages", len(sess.Messages))
	}
	if r := runCLI(t, "", "--config", cfg, "agent", "-c", "-s", "cli:nothing", "-m", "hi"); r.code == 0 || !strings.Contains(r.stderr, "cli:nothing") {
		t.Errorf("-c with a session that does not exist: %+v", r)
	}
}
