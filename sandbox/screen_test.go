package sandbox

import (
	"bufio"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestShellCorpus runs every case of testdata/shell_corpus.tsv.
func TestShellCorpus(t *testing.T) {
	f, err := os.Open("testdata/shell_corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deny, err := NewScreener(&ScreenOptions{Mode: ScreenDenylist, Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	allow, err := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 4 {
			t.Fatalf("line %d: want 4 tab-separated columns, got %d", line, len(cols))
		}
		cmd, err := strconv.Unquote(cols[2])
		if err != nil {
			t.Fatalf("line %d: command %s: %v", line, cols[2], err)
		}
		s := deny
		if cols[0] == "allow" {
			s = allow
		} else if cols[0] != "deny" {
			t.Fatalf("line %d: mode %q", line, cols[0])
		}
		n++
		t.Run(strconv.Itoa(line)+"_"+cols[3], func(t *testing.T) {
			err := s.Check(cmd, "/ws")
			switch cols[1] {
			case "ok":
				if err != nil {
					t.Errorf("%s mode: %q refused, want allowed: %v", cols[0], cmd, err)
				}
			case "refuse":
				if err == nil {
					t.Errorf("%s mode: %q allowed, want refused (%s)", cols[0], cmd, cols[3])
				} else if !errors.Is(err, ErrRefused) {
					t.Errorf("error %v does not wrap ErrRefused", err)
				}
			default:
				t.Fatalf("verdict %q", cols[1])
			}
		})
	}
	if n < 60 {
		t.Fatalf("corpus has %d cases, want at least 60", n)
	}
}

func TestScreenerRejectsBadAllowEntry(t *testing.T) {
	for _, bad := range []string{"", "/bin/ls", "ls;id", "a b"} {
		if _, err := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Allow: []string{bad}}); err == nil {
			t.Errorf("allow entry %q accepted", bad)
		}
	}
}

func TestRefusalNamesTheOption(t *testing.T) {
	s, _ := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Allow: []string{"xargs", "cat", "echo"}, Workspace: "/ws"})
	for _, tt := range []struct{ cmd, program, via string }{
		{"make build", "make", ""},
		{"xargs make < /ws/list", "make", "xargs"},
	} {
		err := s.Check(tt.cmd, "/ws")
		var na *NotAllowedError
		if !errors.As(err, &na) || !errors.Is(err, ErrRefused) || na.Program != tt.program || na.Via != tt.via {
			t.Fatalf("%s: got %v, want a NotAllowedError for %s via %q", tt.cmd, err, tt.program, tt.via)
		}
		if !strings.Contains(err.Error(), "ScreenOptions.Allow") || configKey.MatchString(err.Error()) {
			t.Fatalf("%s: got %q, want a refusal naming ScreenOptions.Allow and no config key", tt.cmd, err)
		}
	}
	err := s.Check("cat /etc/passwd", "/ws")
	if err == nil || configKey.MatchString(err.Error()) || !strings.Contains(err.Error(), "ScreenOptions.Workspace") {
		t.Fatalf("got %v, want a refusal naming ScreenOptions.Workspace and no config key", err)
	}
}

// TestToolSpecParsedOnFirstUse checks that a program's option tables,
// parsed on its first use, equal the eager parse, and that goroutines
// meeting the program at once share one parse (run with -race).
func TestToolSpecParsedOnFirstUse(t *testing.T) {
	spec := tool("c: n: qvz", "bytes= lines= quiet silent verbose zero-terminated", operandsRead)
	wantShort, wantLong := shortTable("c: n: qvz"), longTable("help version bytes= lines= quiet silent verbose zero-terminated")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := spec.shorts(); !reflect.DeepEqual(got, wantShort) {
				t.Errorf("short options: got %v, want %v", got, wantShort)
			}
			if got := spec.longs(); !reflect.DeepEqual(got, wantLong) {
				t.Errorf("long options: got %v, want %v", got, wantLong)
			}
		})
	}
	wg.Wait()
}
