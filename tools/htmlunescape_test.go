package tools

import (
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unescapeCases are the forms a character reference takes: named with and
// without a semicolon, legacy prefixes, two-code-point entities, decimal
// and hex numbers in and out of range, and the near misses of each.
var unescapeCases = []string{
	"", "plain", "&", "&&", "a&b", "&;", "&#", "&#;", "&#x", "&#x;", "&#X;", "&#1", "&#12", "&#1;", "&#1a",
	"&#1 ", "&#65;", "&#65", "&#65x", "&#x41;", "&#X41", "&#x41g", "&#xg", "&#0;", "&#x80;", "&#x9F;",
	"&#128;&#129;&#130;&#141;&#143;&#144;&#157;&#158;&#159;", "&#xD800;", "&#xDFFF;", "&#x10FFFF;", "&#x110000;",
	"&#99999999999999999999;", "&#xFFFFFFFFFFF;", "&amp;", "&amp", "&ampx", "&amp;x", "&AMP;", "&Amp;",
	"&lt;&gt;&quot;&apos;", "&nbsp", "&nbsp;", "&notin;", "&notin", "&notit;", "&not", "&noti", "&copy2024",
	"&frac12;", "&frac12", "&frac123", "&yuml;", "&yumlx;", "&NotEqualTilde;", "&nvlt;", "&acE;", "&bne;",
	"&ThickSpace;", "&Abreve;", "&abreve;", "&fjlig;", "&zwnj;", "&unknown;", "&unknown", "&a;", "&ab", "&lt", "&ltx", "&lt;x",
	"x&amp;y&lt;z", "&amp;&amp;&", "&#38;amp;", "&&amp;", "&#x26;", "&eacute;t&eacute", "&Eacute;&ETH;",
	"&sup1&sup2&sup3", "&para;&parallel;&par;", "&times&timesb;", "&cent;s&cents", "&#9;&#10;&#13;",
}

// TestUnescapeHTMLMatchesStdlib: unescapeHTML decodes every form exactly
// as html.UnescapeString does, alone and inside text.
func TestUnescapeHTMLMatchesStdlib(t *testing.T) {
	for _, c := range unescapeCases {
		for _, s := range []string{c, "x" + c, c + "y", c + c, "<p>" + c + " &gt; " + c + "</p>"} {
			if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
				t.Errorf("unescapeHTML(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for x := range 0x120 {
		for _, s := range []string{"&#" + itoa(x) + ";", "&#x" + hexa(x) + ";", "&#" + itoa(x) + " "} {
			if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
				t.Errorf("unescapeHTML(%q) = %q, want %q", s, got, want)
			}
		}
	}
}

// TestUnescapeHTMLRandom: random strings made of reference pieces decode
// as the standard library decodes them.
func TestUnescapeHTMLRandom(t *testing.T) {
	pieces := []string{"&", "#", "x", "X", ";", "a", "m", "p", "l", "t", "n", "o", "i", "1", "2", "9", "F", " ", "é", "&amp", "&not", "&#", "&#x", "lt", "nbsp", "uml", "&y"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
			t.Fatalf("unescapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzUnescapeHTML holds unescapeHTML to html.UnescapeString on any input.
func FuzzUnescapeHTML(f *testing.F) {
	for _, c := range unescapeCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
			t.Fatalf("unescapeHTML(%q) = %q, want %q", s, got, want)
		}
	})
}

func itoa(x int) string {
	const d = "0123456789"
	if x < 10 {
		return d[x : x+1]
	}
	return itoa(x/10) + d[x%10:x%10+1]
}

func hexa(x int) string {
	const d = "0123456789abcdef"
	if x < 16 {
		return d[x : x+1]
	}
	return hexa(x/16) + d[x%16:x%16+1]
}

// TestUnescapeHTMLEveryEntity: every entity name the standard library
// knows (read from its source, so a new Go release that adds one is
// caught), with and without its semicolon, decodes the same.
func TestUnescapeHTMLEveryEntity(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "html", "entity.go"))
	if err != nil {
		t.Fatalf("read the standard library's entity table: %v", err)
	}
	names := regexp.MustCompile(`(?m)^\t\t"([A-Za-z0-9]+;?)":`).FindAllStringSubmatch(string(src), -1)
	if len(names) < 2000 {
		t.Fatalf("found %d entity names in html/entity.go, want over 2000", len(names))
	}
	for _, m := range names {
		name := strings.TrimSuffix(m[1], ";")
		for _, s := range []string{"&" + name, "&" + name + ";", "&" + name + "x", "a&" + name + ";;b"} {
			if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
				t.Errorf("unescapeHTML(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
