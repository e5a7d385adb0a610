package skills

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func dumpY(n *yaml.Node) string {
	if n.Kind == 0 {
		return "<nil>"
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return "<nil>"
		}
		return dumpY(n.Content[0])
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return fmt.Sprintf("null@%d", n.Line)
		}
		return fmt.Sprintf("%q@%d", n.Value, n.Line)
	case yaml.SequenceNode:
		var p []string
		for _, c := range n.Content {
			p = append(p, dumpY(c))
		}
		return "[" + strings.Join(p, ",") + "]"
	case yaml.MappingNode:
		var p []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			p = append(p, dumpY(n.Content[i])+":"+dumpY(n.Content[i+1]))
		}
		return "{" + strings.Join(p, ",") + "}"
	}
	return "?"
}

func dumpN(n *node) string {
	if n == nil {
		return "<nil>"
	}
	switch n.kind {
	case scalarNode:
		if n.null {
			return fmt.Sprintf("null@%d", n.line)
		}
		return fmt.Sprintf("%q@%d", n.value, n.line)
	case sequenceNode:
		var p []string
		for _, c := range n.content {
			p = append(p, dumpN(c))
		}
		return "[" + strings.Join(p, ",") + "]"
	case mappingNode:
		var p []string
		for i := 0; i+1 < len(n.content); i += 2 {
			p = append(p, dumpN(n.content[i])+":"+dumpN(n.content[i+1]))
		}
		return "{" + strings.Join(p, ",") + "}"
	}
	return "?"
}

// TestParseYAMLAgreesWithTheYAMLLibrary runs the frontmatter parser and
// go.yaml.in/yaml/v3 (the library it replaces, now a test dependency only)
// over the same texts: every node, value and line must match, and a text
// one refuses the other must refuse too, except for anchors, aliases and
// tags, which the frontmatter parser refuses by design.
func TestParseYAMLAgreesWithTheYAMLLibrary(t *testing.T) {
	for _, in := range yamlCorpus {
		var doc yaml.Node
		yerr := yaml.Unmarshal([]byte(in), &doc)
		got, err := parseYAML(in)
		if err != nil && strings.Contains(err.Error(), "anchors, aliases and tags") {
			continue
		}
		if yerr != nil || err != nil {
			if (yerr == nil) != (err == nil) {
				t.Errorf("%q: the library's error %v, ours %v (ours parsed %s)", in, yerr, err, dumpN(got))
			}
			continue
		}
		// A flow list over several lines: the library gives each item its
		// own line, ours the line the list starts on.
		if a, b := dumpY(&doc), dumpN(got); a != b && !strings.Contains(in, "[\n") {
			t.Errorf("%q:\n library %s\n ours    %s", in, a, b)
		}
	}
	for _, in := range []string{"a: &anchor x\n", "a: *alias\n", "a: !!str x\n", "a: [!!str x]\n"} {
		if _, err := parseYAML(in); err == nil || !strings.Contains(err.Error(), "line 1: anchors, aliases and tags are not supported") {
			t.Errorf("%q: %v, want the refusal naming line 1", in, err)
		}
	}
}

var yamlCorpus = []string{
	"",
	"# only a comment\n",
	"name: x\ndescription: d\n",
	"name: x\n  nested: y\n",
	"name: x\ndescription: d\nmetadata: [a]\n",
	"name: x\ndescription: d\nallowed-tools: {a: b}\n",
	"- name\n",
	"name: \"x\"\ndescription: 'quoted: fine'\n# comment\n",
	"name: x\nname: x\ndescription: d\n",
	"name: x\ndescription: [a, b]\n",
	"name: pdf-forms\ndescription: >\n  Fill in, inspect and flatten PDF forms. Use when the user hands over a\n  PDF with form fields (an application, a tax form, a contract) and wants\n  it completed from their notes.\nlicense: Apache-2.0\nallowed-tools:\n  - Bash(python3:*)\n  - Read\n  - Write\nmetadata:\n  author: example-org\n  version: \"1.2\"\n  category: documents\n",
	"# A skill\n# more.\nname: git-bisect\ndescription: |\n  Find the commit that introduced a regression with git bisect.\n  Use when a test passed at some older commit and fails now.\nlicense: \"BSD-3-Clause\"\nallowed-tools: Bash(git bisect:*) Bash(go test:*) Read\nmetadata:\n  author: \"ops team\"\n  tags: \"git, debugging\"\n  min-git: \"2.30\"\n",
	"name: changelog\ndescription: >-\n  Write or update a CHANGELOG.md entry in the Keep a Changelog style from\n  the commits since the last release tag.\nlicense: MIT\ncompatibility: Needs git on the PATH.\nallowed-tools: [Bash(git log:*), Bash(git describe:*), Read, Edit]\nmetadata:\n  author: Jane Doe\n  source: https://example.com/skills/changelog\n  keep-a-changelog: \"1.1.0\"\n",
	"a: |\n  one\n\n  two\n\nb: x\n",
	"a: |+\n  one\n\n\nb: x\n",
	"a: |-\n  one\n  two\nb: x\n",
	"a: >\n  one\n  two\n\n  three\n    indented\n  four\nb: x\n",
	"a: >\n  one\n\n\n  two\n",
	"a: |2\n    lead\n  body\n",
	"a:\n- x\n- y\nb: z\n",
	"a:\n  - x\n  -\n  - y\n",
	"a: plain\n  continued here\n  and here\nb: 1\n",
	"a: plain\n\n  after blank\n",
	"a: 'it''s'\nb: \"tab\\there \\u00e9 \\\" q\"\n",
	"a: \"multi\n  line\"\nb: 'also\n\n  para'\n",
	"a: ~\nb: null\nc:\nd: NULL\n",
	"a: x # comment\nb: 'q' # c\nc: [1, 2] # c\n",
	"a: [x, \"y, z\", 'w']\nb: {k: v, 'q': \"r\"}\n",
	"a: [\n  x,\n  y\n]\n",
	"a: []\nb: {}\n",
	"a: &anchor x\n",
	"a: *alias\n",
	"a: !!str x\n",
	"a: b: c\n",
	"a: x\n b: y\n",
	"\"quoted key\": v\n'k2': w\n",
	"list:\n  - name: a\n    v: 1\n  - name: b\n",
	"a:\n  b:\n    c: d\n  e: f\n",
	"a: x\n\tb: y\n",
	"a: >\n\n  starts blank\n",
	"a: |\n",
	"a: 1.0\nb: true\nc: 0x1F\n",
	"key: value:with:colons\n",
	"url: http://x.y/z?a=b#frag\n",
	"a: don't\n",
	"a: \"unterminated\n",
	"a: [unclosed\n",
	"  a: indented root\n  b: c\n",
	"- a\n- b\n",
	"just text\n",
	"a: >-\n  x\n\n  y\n",
	"a: |\n  x\n   y\n  z\n",
	"a: x\nb:\n  c: [d]\n  e: 'f'\n",
	"k: 'a # not comment'\n",
	"k: a#b\n",
	"k: \"a\" \n",
	"- x\n  y\n",
	"a:\n  - [x, y]\n  - {k: v}\n",
	"a: - b\n",
	"a: |\n  text\n# comment\nb: c\n",
	"a: >\n  text\n  # not a comment inside\n",
	"description: Use when: the user asks\n",
	"a: x\n\n\nb: y\n",
	"a: \"x\\\ny\"\n",
	"a: x   \n",
	"a: >+\n  x\n\n",
	"a: |\n    deep\n    lines\n",
	"a:\n  b: 1\n  c:\n    - d\n    - e: f\n      g: h\n",
	"a: \"\\x41\\u263A\\U0001F600\"\n",
	"a: 'multi\n  line with ''quote'''\n",
	"a: [\"x]\", 'y,z']\n",
	"a: x\n  # comment inside continuation\n  more\n",
	"name: x\ndescription:\n  on the next line\n",
	"a: >\n  folded\n  text\nb: >\n  other\n",
	"metadata:\n  version: 1.2\n  flag: true\n",
	"a: - \n",
	"a: \"\"\nb: ''\n",
	"a: {}\n",
	"a: 'x' y\n",
}

// FuzzParseYAML: no text makes the frontmatter parser panic or loop.
func FuzzParseYAML(f *testing.F) {
	for _, in := range yamlCorpus {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		parseYAML(in)
	})
}
