package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// readmeRunCommands returns the joshbot command lines of the README's
// "Run it" section, in order, each as its argument list (without the
// leading "joshbot"). Every other line of its sh blocks must be one of
// the setup lines the test stands in for, so a new kind of line is a
// failure to look at, not a silent skip.
func readmeRunCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## Run it\n")
	if !ok {
		t.Fatal(`README.md has no "## Run it" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var cmds [][]string
	in := false
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
		line = strings.TrimSpace(stripShellComment(line))
		for _, part := range strings.Split(line, "&&") {
			part = strings.TrimSpace(part)
			switch {
			case part == "":
			case part == "make build", strings.HasPrefix(part, "export "):
				// The test builds the binary and sets the environment itself.
			case strings.HasPrefix(part, "joshbot "):
				cmds = append(cmds, shellWords(t, strings.TrimPrefix(part, "joshbot ")))
			case strings.HasPrefix(part, "go run ./joshbot/cmd/joshbot "):
				// The same program, already built.
				cmds = append(cmds, shellWords(t, strings.TrimPrefix(part, "go run ./joshbot/cmd/joshbot ")))
			default:
				t.Fatalf("README Run it: a line the test does not know how to run: %q", part)
			}
		}
	}
	return cmds
}

// stripShellComment drops a trailing # comment outside double quotes.
func stripShellComment(line string) string {
	q := false
	for i, r := range line {
		switch {
		case r == '"':
			q = !q
		case r == '#' && !q && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// shellWords splits s at spaces, honouring double quotes: all the
// README's commands need.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	q, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			q, have = !q, true
		case r == ' ' && !q:
			if have {
				out = append(out, cur.String())
			}
			cur.Reset()
			have = false
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if q {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// TestReadmeRunItBlock runs every command of the README's "Run it"
// section, in order, with the built binary, as a newcomer would: a fresh
// JOSHBOT_HOME, the OpenRouter key the block exports, and the provider's
// endpoint pointed at the scripted server through the documented
// environment override. Each must exit 0.
func TestReadmeRunItBlock(t *testing.T) {
	bin := binary(t)
	clearProviderEnv(t)
	data, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeRunCommands(t, string(data))
	if len(cmds) < 5 || cmds[0][0] != "onboard" {
		t.Fatalf("the Run it block should start with onboard and show the first commands; got %q", cmds)
	}
	srv := providertest.NewServer(t)
	srv.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text("Hello from the script.") })
	home := t.TempDir()
	env := append(os.Environ(),
		"JOSHBOT_HOME="+home,
		"OPENROUTER_API_KEY=sk-or-test",
		"JOSHBOT_PROVIDERS__OPENROUTER__API_BASE="+srv.URL(),
		"HOME="+t.TempDir(),
	)
	for _, args := range cmds {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("joshbot %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		if args[0] == "agent" && len(args) > 1 && !strings.Contains(stdout.String(), "Hello from the script.") {
			t.Fatalf("joshbot %s printed %q", strings.Join(args, " "), stdout.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); err != nil {
		t.Fatalf("onboard wrote no config in JOSHBOT_HOME: %v", err)
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("no request reached the scripted provider")
	}
}
