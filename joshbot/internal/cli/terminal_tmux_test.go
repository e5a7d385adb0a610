package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// tmuxSession is the real binary running in a tmux pane: keys go in with
// send-keys and the screen comes back with capture-pane.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys types keys; each is a tmux key name ("Tab", "M-Enter") or, with
// literal, text.
func (s *tmuxSession) keys(literal bool, keys ...string) {
	s.t.Helper()
	args := []string{"send-keys", "-t", "t"}
	if literal {
		args = append(args, "-l")
	}
	s.tmux(append(args, keys...)...)
}

func (s *tmuxSession) screen() string {
	return s.tmux("capture-pane", "-p", "-t", "t")
}

// waitFor polls the screen until it holds want. The terminal is a real
// one driven by another process, so there is no event to wait on.
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q; it shows:\n%s", want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTerminalUnderTmux runs `joshbot agent` on a real terminal and types
// at it as a person would: Tab completion, a tool call with its progress
// line, Alt-Enter, history recall, a line of wide characters longer than
// the terminal edited in the middle, and Ctrl-C to leave.
func TestTerminalUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("list_dir", `{"path":"."}`)),
		providertest.Text("first answer"),
		providertest.Text("second answer"),
		providertest.Text("third answer"),
		providertest.Text("fourth answer"),
	)
	cfgPath := scriptedConfig(t, srv)
	home := t.TempDir()
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-test-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s agent; echo EXIT=$?; sleep 60", home, bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "60", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitFor("scripted-model>")

	// Tab completes a slash command; Ctrl-U clears it again.
	s.keys(true, "/qu")
	s.keys(false, "Tab")
	s.waitFor("scripted-model> /quit")
	s.keys(false, "C-u")

	// A wide character, and the tool call's progress line.
	s.keys(true, "héllo 日本")
	s.keys(false, "Enter")
	scr := s.waitFor("first answer")
	if !strings.Contains(scr, "· list_dir .") {
		t.Fatalf("no tool progress line:\n%s", scr)
	}

	// Alt-Enter adds a line to the same message.
	s.keys(true, "line one")
	s.keys(false, "M-Enter")
	s.keys(true, "line two")
	s.keys(false, "Enter")
	s.waitFor("second answer")

	// Up twice recalls the first message.
	s.keys(false, "Up", "Up", "Enter")
	s.waitFor("third answer")

	// 40 wide characters take 80 columns on a 60-column terminal; the
	// cursor walks back across the wrap and an insert lands in place.
	long := strings.Repeat("字", 40)
	s.keys(true, long)
	s.keys(false, "Left", "Left", "Left", "Left", "Left")
	s.keys(true, "X")
	s.keys(false, "Enter")
	s.waitFor("fourth answer")

	// /model switches this conversation's model, and the prompt says so.
	s.keys(true, "/mo")
	s.keys(false, "Tab")
	s.waitFor("scripted-model> /model")
	s.keys(true, "other-model")
	s.keys(false, "Enter")
	s.waitFor("other-model>")

	s.keys(false, "C-c")
	scr = s.waitFor("EXIT=0")
	if n := strings.Count(scr, "scripted-model>"); n > 7 {
		t.Errorf("prompt drawn %d times: it should appear once per message\n%s", n, scr)
	}

	var users []string
	for _, r := range srv.Requests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	want := []string{"héllo 日本", "line one\nline two", "héllo 日本", strings.Repeat("字", 35) + "X" + strings.Repeat("字", 5)}
	if strings.Join(users, "|") != strings.Join(want, "|") {
		t.Fatalf("messages sent:\n%q\nwant\n%q\nscreen:\n%s", users, want, scr)
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(cfgPath), term.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("history mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestTerminalApprovalUnderTmux: a shell command asks for approval in the
// middle of a turn; the answer typed at the real terminal reaches the
// approver, not the line editor, and the conversation goes on after it.
func TestTerminalApprovalUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath, ws := toolsConfig(t, srv, config.Tools{ShellApproval: "always", ShellSandbox: "off"})
	os.WriteFile(filepath.Join(ws, "present.txt"), []byte("x"), 0o600)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"ls"}`)),
		providertest.Text("listed"),
		providertest.Text("after"),
		providertest.Reply{Content: "too late", Delay: time.Minute},
	)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-approve-%d", os.Getpid())}
	// The shell around joshbot survives Ctrl-C as a login shell would,
	// so the pane stays to be read.
	script := fmt.Sprintf("trap : INT; HOME=%s %s --config %s agent; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "80", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("scripted-model>")
	s.keys(true, "list the files")
	s.keys(false, "Enter")
	s.waitFor("Run it?")
	s.keys(true, "y")
	s.keys(false, "Enter")
	s.waitFor("listed")
	s.keys(true, "next")
	s.keys(false, "Enter")
	s.waitFor("after")

	// Ctrl-C while an answer is awaited stops that answer, not joshbot.
	s.keys(true, "slow one")
	s.keys(false, "Enter")
	for deadline := time.Now().Add(15 * time.Second); len(srv.Requests()) < 4; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow turn never reached the provider:\n%s", s.screen())
		}
	}
	s.keys(false, "C-c")
	s.waitFor("(stopped)")
	s.keys(true, "still here")
	scr := s.waitFor("scripted-model> still here")
	if strings.Contains(scr, "too late") || strings.Contains(scr, "EXIT=") {
		t.Fatalf("Ctrl-C did not just stop the answer:\n%s", scr)
	}
	s.keys(false, "C-u", "C-d")
	s.waitFor("EXIT=0")
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "present.txt") {
		t.Fatalf("the approved command did not run: %q", res)
	}
	if got := srv.Requests()[2].Messages; got[len(got)-1].Content != "next" {
		t.Fatalf("the message after the approval was %q", got[len(got)-1].Content)
	}
}

// TestBackgroundWarningAboveThePromptUnderTmux: a WARN line from the
// background learning step arrives while the person is typing at the
// prompt. It is printed above the prompt, on its own line, and the prompt
// with the half-typed line is drawn again below it, where typing goes on.
func TestBackgroundWarningAboveThePromptUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	// The learning step runs once per agent.DefaultLearnEvery exchanges
	// worth learning from; its request fails after the prompt is back.
	for i := 1; i <= agent.DefaultLearnEvery; i++ {
		srv.Enqueue(providertest.Text(fmt.Sprintf("answer %d", i)))
	}
	srv.Enqueue(providertest.Reply{Status: 400, Delay: 1500 * time.Millisecond})
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Learning = "on"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-warn-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s agent; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("scripted-model>")
	for i := 1; i <= agent.DefaultLearnEvery; i++ {
		s.keys(true, fmt.Sprintf("I live in Paris, fact %d.", i))
		s.keys(false, "Enter")
		s.waitFor(fmt.Sprintf("answer %d", i))
	}
	s.keys(true, "half typed")
	s.waitFor("scripted-model> half typed")
	s.waitFor("learning step failed")
	s.keys(true, " more")
	scr := s.waitFor("half typed more")
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	warn, prompt := -1, -1
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		switch {
		case strings.Contains(l, "learning step failed"):
			if !strings.HasPrefix(l, "time=") {
				t.Fatalf("the warning does not start its own line:\n%s", scr)
			}
			warn = i
		case l == "scripted-model> half typed more":
			prompt = i
		}
	}
	if warn < 0 || prompt < warn {
		t.Fatalf("the prompt was not drawn again below the warning (warning at %d, prompt at %d):\n%s", warn, prompt, scr)
	}
	s.keys(false, "C-u", "C-d")
	s.waitFor("EXIT=0")
}

// TestOneShotStreamsOnATerminalUnderTmux: `agent -m` with its output on a
// terminal asks the provider for a stream and shows the answer once; piped,
// it does not stream (TestOneShotPrintsScriptedReplyAndSavesSession).
func TestOneShotStreamsOnATerminalUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("a streamed answer in several pieces"))
	cfgPath := scriptedConfig(t, srv)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-oneshot-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s agent -m hello; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "20", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	scr := s.waitFor("EXIT=")
	if !strings.Contains(scr, "EXIT=0") || strings.Count(scr, "a streamed answer in several pieces") != 1 {
		t.Fatalf("the answer was not shown once:\n%s", scr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !reqs[0].Stream {
		t.Fatalf("the request on a terminal did not ask for a stream (%d requests)", len(reqs))
	}
}

// TestWaitingStatusUnderTmux: while the model has not begun answering, the
// terminal shows for how long it has waited; the answer replaces the
// status line when it comes.
func TestWaitingStatusUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Content: "late answer", Delay: 3500 * time.Millisecond})
	cfgPath := scriptedConfig(t, srv)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-waiting-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s agent -m hello; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "20", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("waiting for the model (2s)")
	scr := s.waitFor("EXIT=")
	if !strings.Contains(scr, "late answer") || !strings.Contains(scr, "EXIT=0") || strings.Contains(scr, "waiting for the model") {
		t.Fatalf("the status line was not replaced by the answer:\n%s", scr)
	}
}

// TestCtrlCKeepsThePartialAnswerUnderTmux: Ctrl-C while an answer streams
// leaves the text shown on the screen, says the answer was stopped and
// kept, and the session holds it as an interrupted assistant message.
func TestCtrlCKeepsThePartialAnswerUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Content: "The first part of a long answer that never ends", HangAfterChunks: 3})
	cfgPath := scriptedConfig(t, srv)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-ctrlc-%d", os.Getpid())}
	script := fmt.Sprintf("trap : INT; HOME=%s %s --config %s agent; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "20", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("scripted-model>")
	s.keys(true, "tell me")
	s.keys(false, "Enter")
	s.waitFor("The first")
	s.keys(false, "C-c")
	scr := s.waitFor("stopped")
	if !strings.Contains(scr, "The first") || !strings.Contains(scr, "(stopped; the answer so far is kept)") {
		t.Fatalf("the partial answer or the stop note is missing:\n%s", scr)
	}
	s.keys(false, "C-d")
	s.waitFor("EXIT=0")
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	sess, err := store.Load(defaultSession)
	if err != nil {
		t.Fatal(err)
	}
	last := sess.Messages[len(sess.Messages)-1]
	if last.Role != "assistant" || last.Kind != memory.KindInterrupted || !strings.HasPrefix(last.Content, "The first") {
		t.Fatalf("last message %+v", last)
	}
}
