package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogFileGetsRedactedLinesAt0600(t *testing.T) {
	clearProviderEnv(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	// A preexisting world-readable log is tightened.
	logPath := filepath.Join(dir, logFileName)
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	secret := "sk-" + strings.Repeat("a1b2", 10)
	a := &app{configPath: cfg, stderr: &strings.Builder{}, logLevel: "info"}
	if err := a.setupLogging(); err != nil {
		t.Fatal(err)
	}
	a.log.Info("a line", "token", secret)
	a.closeLog()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "a line") {
		t.Fatalf("log file lacks the line: %q", b)
	}
	if strings.Contains(string(b), secret) {
		t.Fatalf("log file holds the credential: %q", b)
	}
	if !strings.Contains(a.stderr.(*strings.Builder).String(), "a line") {
		t.Fatal("stderr lacks the line")
	}
	fi, _ := os.Stat(logPath)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestNoLogFileWithoutHome(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	r := runCLI(t, "", "--config", filepath.Join(dir, "config.json"), "version")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("version created the home: %v", err)
	}
}
