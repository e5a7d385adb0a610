package memory

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests in this file run the test binary itself as a child process
// (selected by childEnv) so that real processes can be killed and can race.
const childEnv = "JOSHBOT_MEMORY_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode == "fulldisk" {
		os.Exit(runFullDiskChild())
	} else if strings.HasPrefix(mode, "turn") {
		os.Exit(runTurnChild(mode))
	} else if mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild appends turns to a session and reports each one on stdout once
// Append has returned, the point at which a turn counts as acknowledged.
// Arguments come from the environment: the store directory, the key, the
// first turn number and how many turns to write (0 means until killed).
func runChild(mode string) int {
	dir, key := os.Getenv("CHILD_DIR"), os.Getenv("CHILD_KEY")
	first, _ := strconv.Atoi(os.Getenv("CHILD_FIRST"))
	count, _ := strconv.Atoi(os.Getenv("CHILD_COUNT"))
	s, err := NewStore(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for i := first; count == 0 || i < first+count; i++ {
		_, err := s.Append(key,
			Message{Role: "user", Content: fmt.Sprintf("turn %d from %s", i, mode)},
			Message{Role: "assistant", Content: fmt.Sprintf("reply %d", i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		// A write straight to the descriptor: nothing is acknowledged
		// before the turn is on disk, and nothing sits in a buffer.
		fmt.Fprintf(os.Stdout, "ack %d\n", i)
	}
	return 0
}

func childCmd(t *testing.T, mode, dir, key string, first, count int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "CHILD_DIR="+dir, "CHILD_KEY="+key,
		"CHILD_FIRST="+strconv.Itoa(first), "CHILD_COUNT="+strconv.Itoa(count))
	cmd.Stderr = os.Stderr
	return cmd
}

// turnsIn returns the turn numbers whose user message and matching reply
// are both in msgs, adjacent and in order.
func turnsIn(msgs []Message) map[int]bool {
	got := make(map[int]bool)
	for i := 0; i+1 < len(msgs); i++ {
		var n int
		if _, err := fmt.Sscanf(msgs[i].Content, "turn %d", &n); err != nil || msgs[i].Role != "user" {
			continue
		}
		if msgs[i+1].Role == "assistant" && msgs[i+1].Content == fmt.Sprintf("reply %d", n) {
			got[n] = true
		}
	}
	return got
}

func TestKillDuringWritesKeepsAcknowledgedTurns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL semantics are Unix")
	}
	runs := 200
	if testing.Short() {
		runs = 40
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	dir := filepath.Join(t.TempDir(), "sessions")
	const key = "cli:kill"
	acked := make(map[int]bool)
	for run := range runs {
		// A fresh session every 25 runs keeps the rewrite cost bounded
		// while each session still survives many kills in a row.
		k := fmt.Sprintf("%s%d", key, run/25)
		cmd := childCmd(t, "kill", dir, k, run*1_000_000, 0)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Wait for the first acknowledgement so that every kill lands
		// while writes are in flight, then kill at a random moment.
		var runAcks []string
		first, ok := <-lines
		if !ok {
			t.Fatalf("run %d: child exited before writing anything", run)
		}
		runAcks = append(runAcks, first)
		timer := time.After(time.Duration(rng.IntN(8000)) * time.Microsecond)
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				runAcks = append(runAcks, l)
			case <-timer:
				break wait
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// Acknowledgements already written to the pipe before the kill
		// count too.
		for l := range lines {
			runAcks = append(runAcks, l)
		}
		cmd.Wait()

		want := make(map[int]bool)
		for _, l := range runAcks {
			n, err := strconv.Atoi(strings.TrimPrefix(l, "ack "))
			if err != nil {
				t.Fatalf("run %d: child printed %q", run, l)
			}
			want[n], acked[n] = true, true
		}
		s, err := NewStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := s.Read(k)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if snap.Unreadable != 0 {
			t.Fatalf("run %d: session has %d unreadable lines after SIGKILL", run, snap.Unreadable)
		}
		have := turnsIn(snap.Messages)
		for n := range want {
			if !have[n] {
				t.Fatalf("run %d: acknowledged turn %d is missing from the session", run, n)
			}
		}
	}
	t.Logf("%d kills, %d acknowledged turns, all present", runs, len(acked))
}

func TestTwoProcessesAppendConcurrently(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	const key = "api:shared"
	per := 60
	if testing.Short() {
		per = 20
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, mode := range []string{"a", "b"} {
		cmd := childCmd(t, mode, dir, key, i*1000, per)
		cmd.Stdout = nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil {
				errs <- fmt.Errorf("child %s: %w", mode, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Unreadable != 0 {
		t.Fatalf("concurrent appends left %d unreadable lines", snap.Unreadable)
	}
	have := turnsIn(snap.Messages)
	want := 2 * per
	if runtime.GOOS == "windows" {
		// Without advisory locks only wholeness is promised.
		want = 0
	}
	if len(have) < want || len(snap.Messages) != 2*len(have) {
		t.Fatalf("session holds %d whole turns in %d messages, want %d turns", len(have), len(snap.Messages), 2*per)
	}
}
