package telegram

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/channels"
)

// telegramTag matches one tag of Telegram's HTML subset, with the only
// attributes it accepts.
var telegramTag = regexp.MustCompile(`^<(/?)(b|i|u|s|code|pre|a|blockquote|tg-spoiler)((?: href="[^"<>]*")|(?: class="language-[^"<>& ]+")|(?: expandable))?>`)

// checkTelegramHTML is a tiny validator for the HTML Telegram accepts:
// only its tags, every one closed in order, no markup inside <code> or
// <pre> (other than <pre><code>), no nested blockquote, and only the
// entities &amp; &lt; &gt; &quot; in text.
func checkTelegramHTML(s string) error {
	var stack []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			m := telegramTag.FindStringSubmatch(s[i:])
			if m == nil {
				return fmt.Errorf("byte %d: not a Telegram tag: %.30q", i, s[i:])
			}
			closing, name, attr := m[1] == "/", m[2], m[3]
			if closing {
				if attr != "" {
					return fmt.Errorf("byte %d: closing tag with attributes", i)
				}
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("byte %d: </%s> closes %v", i, name, stack)
				}
				stack = stack[:len(stack)-1]
			} else {
				if len(stack) > 0 {
					top := stack[len(stack)-1]
					if top == "code" || top == "pre" && name != "code" {
						return fmt.Errorf("byte %d: <%s> inside <%s>", i, name, top)
					}
				}
				for _, open := range stack {
					if open == name && (name == "blockquote" || name == "a") {
						return fmt.Errorf("byte %d: nested <%s>", i, name)
					}
				}
				if name == "a" && attr == "" || name != "a" && strings.HasPrefix(attr, " href") {
					return fmt.Errorf("byte %d: <%s%s>: wrong attributes", i, name, attr)
				}
				if strings.HasPrefix(attr, " class") && (len(stack) == 0 || stack[len(stack)-1] != "pre") {
					return fmt.Errorf("byte %d: a language class outside <pre>", i)
				}
				stack = append(stack, name)
			}
			i += len(m[0])
		case '>':
			return fmt.Errorf("byte %d: bare >", i)
		case '&':
			ok := false
			for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;"} {
				if strings.HasPrefix(s[i:], e) {
					ok = true
				}
			}
			if !ok {
				return fmt.Errorf("byte %d: bare &: %.20q", i, s[i:])
			}
			i++
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %v at the end", stack)
	}
	return nil
}

func TestCheckTelegramHTMLRefusesBrokenMarkup(t *testing.T) {
	for _, bad := range []string{
		"<b>x", "<b><i>x</b></i>", "</b>", "<p>x</p>", "a < b", "a > b", "AT&T",
		"<pre><b>x</b></pre>", "<code><i>x</i></code>", "<blockquote><blockquote>x</blockquote></blockquote>",
		`<a>x</a>`, `<b href="x">y</b>`, `<code class="language-go">x</code>`,
	} {
		if checkTelegramHTML(bad) == nil {
			t.Errorf("%q passed the checker", bad)
		}
	}
	good := `<b>a <i>b</i></b> &amp; <a href="https://x?a=1&amp;b=2">l</a><pre><code class="language-go">x &lt; y</code></pre><blockquote expandable>q</blockquote><tg-spoiler>s</tg-spoiler>`
	if err := checkTelegramHTML(good); err != nil {
		t.Errorf("valid markup refused: %v", err)
	}
}

// TestRenderedHTMLIsBalanced checks every golden answer's rendering with
// the validator, whole and split into pieces as sendText splits a long
// reply (at several sizes, each piece rendered with the fence the
// previous piece left open): no piece may carry an unbalanced tag.
func TestRenderedHTMLIsBalanced(t *testing.T) {
	mds, err := filepath.Glob(filepath.Join("testdata", "render", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mds) < 30 {
		t.Fatalf("only %d answers in testdata/render, want 30", len(mds))
	}
	for _, md := range mds {
		src, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		if err := checkTelegramHTML(renderHTML(text, nil)); err != nil {
			t.Errorf("%s: %v", md, err)
		}
		for _, size := range []int{40, 97, 200} {
			var open *string
			for i, p := range channels.Chunk(text, size) {
				out := renderHTML(p, open)
				if err := checkTelegramHTML(out); err != nil {
					t.Errorf("%s split at %d, piece %d: %v\n%s", md, size, i, err, out)
				}
				open = fenceAfter(p, open)
			}
		}
	}
}

// FuzzRenderHTMLBalanced feeds arbitrary Markdown (seeded with the tricky
// shapes: raw tags crossing emphasis, links in emphasis, fences in lists)
// to the renderer, whole and as a piece continuing a fence, and checks the
// output with the validator.
func FuzzRenderHTMLBalanced(f *testing.F) {
	for _, s := range []string{
		"*a <u>b* c</u>", "<u>a *b</u> c*", "[*x <b>y*](https://e.x) z</b>",
		"- a\n  ```go\n  x < y\n  ```\n- b", "> q <tg-spoiler>s\n\nafter</tg-spoiler>",
		"| a | b |\n|---|---|\n| *x* | `y` |", "***a** b*", "<i><b>x</i></b>",
		"1. x\n   > quote\n   > > nested", "![img *alt*](https://x/y.png)",
		"[![badge](https://img.example/b.svg)](https://example.com) <https://a.b>",
		"[see <https://x.example> here](https://y.example)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if err := checkTelegramHTML(renderHTML(md, nil)); err != nil {
			t.Fatalf("%q: %v\n%s", md, err, renderHTML(md, nil))
		}
		lang := "go"
		if err := checkTelegramHTML(renderHTML(md, &lang)); err != nil {
			t.Fatalf("%q after a fence: %v\n%s", md, err, renderHTML(md, &lang))
		}
	})
}
