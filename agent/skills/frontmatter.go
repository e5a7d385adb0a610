package skills

import (
	"fmt"
	"strings"
)

// parseFrontmatter splits a SKILL.md into its frontmatter fields and body.
//
// SKILL.md frontmatter is a flat block of "key: value" lines between two
// "---" lines, which is all a skill needs (a name and a description). A
// small strict parser for exactly that is preferred over a YAML library:
// no new dependency, and anything fancier (nesting, lists, anchors) is
// refused with the line number instead of being half-understood. Values
// may be quoted with "..." or '...'; # starts a comment line.
func parseFrontmatter(text string) (map[string]string, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return nil, "", fmt.Errorf("no frontmatter: the file must start with a line \"---\"")
	}
	closing := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			closing = i
			break
		}
	}
	if closing < 0 {
		return nil, "", fmt.Errorf("frontmatter is not closed by a line \"---\"")
	}
	block := strings.Join(lines[1:closing], "\n")
	body := strings.Join(lines[closing+1:], "\n")
	fields := map[string]string{}
	for i, line := range strings.Split(block, "\n") {
		n := i + 2 // line 1 is the opening ---
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(trimmed, "- ") {
			return nil, "", fmt.Errorf("frontmatter line %d: nested values and lists are not supported; use flat key: value lines", n)
		}
		key, val, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\"'") {
			return nil, "", fmt.Errorf("frontmatter line %d: want key: value, got %q", n, line)
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' && val[len(val)-1] == '"' || val[0] == '\'' && val[len(val)-1] == '\'') {
			val = val[1 : len(val)-1]
		} else if val != "" && (val[0] == '"' || val[0] == '\'' || val[0] == '[' || val[0] == '{' || val[0] == '|' || val[0] == '>') {
			return nil, "", fmt.Errorf("frontmatter line %d: value of %s must be plain text or fully quoted", n, key)
		}
		if _, dup := fields[key]; dup {
			return nil, "", fmt.Errorf("frontmatter line %d: %s is given twice", n, key)
		}
		fields[key] = val
	}
	return fields, body, nil
}
