package agent_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A MEMORY.md (or a session's memory file) damaged with NUL bytes and
// invalid UTF-8 reaches the model cleaned, and a warning names the file.
func TestDamagedMemoryFileIsCleanedWithAWarning(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ws := t.TempDir()
	lt, err := memory.OpenLongTerm(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, srv, _, ws := setup(t, &agent.Options{Logger: log, Memory: agent.MemoryOptions{DisableLearning: true, LongTerm: lt}})
	dirty := "- likes tea\x00\x00\n- lives in K\xf6ln\n- \xff\xfeend\n"
	if err := os.WriteFile(filepath.Join(ws, agent.MemoryFile), []byte(dirty), 0o600); err != nil {
		t.Fatal(err)
	}
	facts, err := lt.FactsPath("cli:dirty")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(facts), 0o700)
	if err := os.WriteFile(facts, []byte("- session fact\x00 here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("ok"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:dirty", Text: "hi", Channel: "cli"}); err != nil {
		t.Fatal(err)
	}
	system := srv.Requests()[0].Messages[0].Content
	if strings.ContainsRune(system, 0) || !utf8.ValidString(system) {
		t.Fatalf("the prompt carries NUL bytes or invalid UTF-8: %q", system)
	}
	if !strings.Contains(system, "likes tea") || !strings.Contains(system, "session fact here") {
		t.Fatalf("the cleaned memory lost its facts: %q", system)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), agent.MemoryFile) {
		t.Fatalf("no warning names %s:\n%s", agent.MemoryFile, logs.String())
	}
}
