package providers

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
// without a semicolon, legacy prefixes, decimal and hex numbers in and out
// of range, and the near misses of each.
var unescapeCases = []string{
	"", "plain", "&", "&&", "a&b", "&;", "&#", "&#;", "&#x", "&#x;", "&#X;", "&#1", "&#12", "&#1;", "&#1a",
	"&#1 ", "&#65;", "&#65", "&#65x", "&#x41;", "&#X41", "&#x41g", "&#xg", "&#0;", "&#x80;", "&#x9F;",
	"&#128;&#129;&#130;&#141;&#143;&#144;&#157;&#158;&#159;", "&#xD800;", "&#xDFFF;", "&#x10FFFF;", "&#x110000;",
	"&#99999999999999999999;", "&#xFFFFFFFFFFF;", "&amp;", "&amp", "&ampx", "&amp;x", "&AMP;", "&Amp;",
	"&lt;&gt;&quot;&apos;", "&nbsp", "&nbsp;", "&not", "&noti", "&copy2024", "&frac12;", "&frac12", "&frac123",
	"&yuml;", "&yumlx;", "&a;", "&ab", "&lt", "&ltx", "&lt;x", "x&amp;y&lt;z", "&amp;&amp;&", "&#38;amp;",
	"&&amp;", "&#x26;", "&eacute;t&eacute", "&Eacute;&ETH;", "&sup1&sup2&sup3", "&times&", "&cent;s&cents",
	"&#9;&#10;&#13;", "Caf&eacute; &mdash; 502 Bad Gateway &hellip;", "&rsquo;&lsquo;&ldquo;&rdquo;&ndash;&trade;&euro;",
}

// fullEntity reports whether the standard library decodes "&name;" as one
// reference to name.
func fullEntity(name string) bool {
	return !strings.HasSuffix(html.UnescapeString("&"+name+";"), ";")
}

// tableNamesOnly reports whether unescapeHTML knows every name s spells out with a
// semicolon that the standard library knows: then the two must agree.
func tableNamesOnly(s string) bool {
	for _, m := range regexp.MustCompile(`&([A-Za-z0-9]+);`).FindAllStringSubmatch(s, -1) {
		if fullEntity(m[1]) && !strings.Contains(legacyEntities+namedEntities, " "+m[1]+":") {
			return false
		}
	}
	return true
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

// TestUnescapeHTMLUnknownName: a name outside the tables is left as it is
// (or decoded as the legacy name it starts with, as HTML does).
func TestUnescapeHTMLUnknownName(t *testing.T) {
	for s, want := range map[string]string{"&Abreve;": "&Abreve;", "&notin;": "¬in;", "&larr; back": "&larr; back"} {
		if got := unescapeHTML(s); got != want {
			t.Errorf("unescapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestUnescapeHTMLRandom: random strings made of reference pieces decode
// as the standard library decodes them, wherever they name only entities
// the tables hold.
func TestUnescapeHTMLRandom(t *testing.T) {
	pieces := []string{"&", "#", "x", "X", ";", "a", "m", "p", "l", "t", "n", "o", "i", "1", "2", "9", "F", " ", "é", "&amp", "&not", "&#", "&#x", "lt", "nbsp", "uml", "&y"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if !tableNamesOnly(s) {
			continue
		}
		n++
		if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
			t.Fatalf("unescapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
	if n < 15000 {
		t.Fatalf("only %d of 20000 random strings compared", n)
	}
}

// TestUnescapeHTMLEveryEntity: every name of the tables is a name the
// standard library decodes to the same code point, and every legacy name
// of the standard library's table (read from its source) is among them.
func TestUnescapeHTMLEveryEntity(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "html", "entity.go"))
	if err != nil {
		t.Fatalf("read the standard library's entity table: %v", err)
	}
	legacy := regexp.MustCompile(`(?m)^\t\t"([A-Za-z0-9]+)":`).FindAllStringSubmatch(string(src), -1)
	if len(legacy) < 100 {
		t.Fatalf("found %d legacy entity names in html/entity.go, want over 100", len(legacy))
	}
	for _, m := range legacy {
		if !strings.Contains(legacyEntities, " "+m[1]+":") {
			t.Errorf("legacyEntities lacks %s", m[1])
		}
	}
	for _, table := range []string{legacyEntities, namedEntities} {
		for _, e := range strings.Fields(table) {
			name, _, _ := strings.Cut(e, ":")
			for _, s := range []string{"&" + name, "&" + name + ";", "&" + name + "x", "a&" + name + ";;b"} {
				if !tableNamesOnly(s) {
					continue
				}
				if got, want := unescapeHTML(s), html.UnescapeString(s); got != want {
					t.Errorf("unescapeHTML(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}

// FuzzUnescapeHTML holds unescapeHTML to html.UnescapeString on any input
// that names only entities the tables hold.
func FuzzUnescapeHTML(f *testing.F) {
	for _, c := range unescapeCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !tableNamesOnly(s) {
			return
		}
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
