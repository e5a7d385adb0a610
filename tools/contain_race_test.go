package tools

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPathCorpus runs testdata/path_corpus.tsv through the real tools.
func TestPathCorpus(t *testing.T) {
	f := newFixture(t)
	f.write(t, "dir/file.txt", "inside text")
	f.link(t, "dir", "inlink")
	f.link(t, "dir/file.txt", "filelink")
	f.link(t, f.outside, "outlink")
	f.link(t, f.outside, "a/b")
	f.link(t, f.canary, "leak.txt")
	f.link(t, "/etc", "etclink")
	f.link(t, filepath.Join(f.outside, "ghost.txt"), "dangling.txt")
	// "../out" must name the outside directory for the relative cases.
	out := filepath.Join(filepath.Dir(f.ws), "out")
	if err := os.Symlink(f.outside, out); err != nil {
		t.Fatal(err)
	}

	file, err := os.Open("testdata/path_corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	before := listTree(t, f.outside)
	sc := bufio.NewScanner(file)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 4 {
			t.Fatalf("line %d: want 4 columns", line)
		}
		p, err := strconv.Unquote(cols[1])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		p = strings.NewReplacer("{ws}", f.ws, "{out}", f.outside).Replace(p)
		n++
		t.Run(strconv.Itoa(line)+"_"+cols[3], func(t *testing.T) {
			a := args{"path": p}
			if cols[0] == "write_file" {
				a["content"] = "PWNED"
			}
			got, err := f.run(t, cols[0], a)
			switch cols[2] {
			case "ok":
				if err != nil {
					t.Fatalf("%s %q: %v", cols[0], p, err)
				}
			case "refuse":
				if err == nil {
					t.Fatalf("%s %q succeeded: %q", cols[0], p, got)
				}
				if strings.Contains(got+err.Error(), "CANARY") {
					t.Fatalf("leaked: %q %v", got, err)
				}
			default:
				t.Fatalf("verdict %q", cols[2])
			}
		})
	}
	if n < 25 {
		t.Fatalf("corpus has %d cases", n)
	}
	if after := listTree(t, f.outside); strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Fatalf("outside changed: %v -> %v", before, after)
	}
}

// TestSwapBetweenCheckAndOpen replaces a directory with a symbolic link to
// the outside in the window between resolving a path and opening it. The
// open must fail, by openat2 and by the component walk alike.
func TestSwapBetweenCheckAndOpen(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		name := "openat2"
		if walkOnly {
			name = "component walk"
		}
		t.Run(name, func(t *testing.T) {
			setNoOpenat2(t, walkOnly)
			for _, tt := range []struct {
				tool string
				args args
			}{
				{"read_file", args{"path": "sub/canary.txt"}},
				{"list_dir", args{"path": "sub"}},
				{"grep", args{"pattern": "CANARY", "path": "sub/canary.txt"}},
				{"edit_file", args{"path": "sub/canary.txt", "old_text": "CANARY", "new_text": "PWNED"}},
				{"write_file", args{"path": "sub/canary.txt", "content": "PWNED"}},
				{"write_file", args{"path": "sub/new.txt", "content": "PWNED"}},
			} {
				t.Run(tt.tool, func(t *testing.T) {
					f := newFixture(t)
					f.write(t, "sub/canary.txt", "inside decoy")
					c := f.contained(t)
					c.beforeOpen = func() {
						sub := filepath.Join(f.ws, "sub")
						if err := os.Rename(sub, sub+".moved"); err != nil {
							t.Fatal(err)
						}
						if err := os.Symlink(f.outside, sub); err != nil {
							t.Fatal(err)
						}
						c.beforeOpen = nil
					}
					out, err := f.run(t, tt.tool, tt.args)
					if err == nil {
						t.Fatalf("%s after the swap succeeded: %q", tt.tool, out)
					}
					if strings.Contains(out+err.Error(), "CANARY") {
						t.Fatalf("leaked outside content: %q %v", out, err)
					}
					if !strings.Contains(err.Error(), "symbolic link") {
						t.Fatalf("error does not name the link: %v", err)
					}
					if got := string(mustReadFile(t, f.canary)); got != canaryText {
						t.Fatalf("outside file changed to %q", got)
					}
					if _, err := os.Lstat(filepath.Join(f.outside, "new.txt")); err == nil {
						t.Fatal("a file was created outside")
					}
				})
			}
		})
	}
}
