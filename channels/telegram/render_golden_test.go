package telegram

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/render")

// TestRenderHTMLGolden renders every Markdown answer under testdata/render
// and compares the Telegram HTML with the .html file beside it: the exact
// bytes Telegram receives are part of the contract. A file whose name holds
// "continued-python-fence" is rendered as the second piece of a split
// answer, starting inside a ```python fence. Run with -update to record.
func TestRenderHTMLGolden(t *testing.T) {
	mds, err := filepath.Glob(filepath.Join("testdata", "render", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mds) < 30 {
		t.Fatalf("only %d answers in testdata/render", len(mds))
	}
	for _, md := range mds {
		name := strings.TrimSuffix(filepath.Base(md), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			var open *string
			if strings.Contains(name, "continued-python-fence") {
				lang := "python"
				open = &lang
			}
			got := renderHTML(strings.TrimSuffix(string(src), "\n"), open) + "\n"
			golden := strings.TrimSuffix(md, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestRenderHTMLGolden -update to record it)", err)
			}
			if got != string(want) {
				t.Errorf("%s: rendering changed\n--- want\n%s\n--- got\n%s", golden, want, got)
			}
		})
	}
}
