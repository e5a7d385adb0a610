package skills

import (
	"errors"
	"strings"
)

// frontmatter is what a SKILL.md declares about itself, in the public Agent
// Skills format: a YAML mapping between two "---" lines.
type frontmatter struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	// AllowedTools is the allowed-tools field: a YAML list, or the format's
	// space-separated string, split.
	AllowedTools []string
	// Metadata is the metadata map, its values as text.
	Metadata map[string]string
}

// parseFrontmatter splits a SKILL.md into its frontmatter and body.
//
// The frontmatter is parsed as the YAML skills written for other agents
// use, which the Agent Skills format allows: lists (allowed-tools), maps
// (metadata) and folded or literal strings (description: >); see
// parseYAML for what it reads. Unknown keys are ignored, as that format asks; the
// known ones must have the right shape, and any problem is reported with
// its line in the file (line 1 is the opening ---).
func parseFrontmatter(text string) (frontmatter, string, error) {
	var fm frontmatter
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return fm, "", errorf("no frontmatter: the file must start with a line \"---\"")
	}
	closing := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			closing = i
			break
		}
	}
	if closing < 0 {
		return fm, "", errorf("frontmatter is not closed by a line \"---\"")
	}
	block := strings.Join(lines[1:closing], "\n")
	body := strings.Join(lines[closing+1:], "\n")

	root, err := parseYAML(block)
	if err != nil {
		// Shift the line (counted from the block) to the file's.
		var ye *yamlError
		if errors.As(err, &ye) {
			return fm, "", errorf("frontmatter is not valid YAML: line %d: %s", ye.line+1, ye.msg)
		}
		return fm, "", errorf("frontmatter is not valid YAML: %w", err)
	}
	if root == nil {
		return fm, body, nil // empty block: the caller reports what is missing
	}
	if root.kind != mappingNode {
		return fm, "", errorf("frontmatter line %d: want key: value lines, got a %s", root.line+1, kindName(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.content); i += 2 {
		k, v := root.content[i], root.content[i+1]
		line := k.line + 1
		if first, dup := seen[k.value]; dup {
			return fm, "", errorf("frontmatter line %d: %s is given twice (first on line %d)", line, k.value, first)
		}
		seen[k.value] = line
		var err error
		switch k.value {
		case "name":
			fm.Name, err = text1(k.value, v)
		case "description":
			fm.Description, err = text1(k.value, v)
			fm.Description = strings.TrimSpace(fm.Description)
		case "license":
			fm.License, err = text1(k.value, v)
		case "compatibility":
			fm.Compatibility, err = text1(k.value, v)
		case "allowed-tools":
			fm.AllowedTools, err = toolList(v)
		case "metadata":
			fm.Metadata, err = textMap(v)
		}
		if err != nil {
			return fm, "", errorf("frontmatter line %d: %w", line, err)
		}
	}
	return fm, body, nil
}

// text1 decodes a scalar field as text.
func text1(key string, v *node) (string, error) {
	if v.kind != scalarNode {
		return "", errorf("%s must be text, not a %s (quote it if it holds [ { or a leading - )", key, kindName(v))
	}
	if v.null {
		return "", nil
	}
	return v.value, nil
}

// toolList decodes allowed-tools: a list of tool names, or one string of
// names separated by spaces.
func toolList(v *node) ([]string, error) {
	switch v.kind {
	case scalarNode:
		if v.null {
			return nil, nil
		}
		return splitTools(v.value), nil
	case sequenceNode:
		out := make([]string, 0, len(v.content))
		for _, item := range v.content {
			s, err := text1("each allowed-tools entry", item)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, errorf("allowed-tools must be a list of tool names, not a %s", kindName(v))
}

// splitTools splits the space-separated form of allowed-tools, keeping a
// pattern's parentheses whole: "Bash(git log:*) Read" is two tools.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ' ' || r == '\t' || r == '\n') && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// textMap decodes metadata: a map of keys to text values.
func textMap(v *node) (map[string]string, error) {
	if v.kind == scalarNode && v.null {
		return nil, nil
	}
	if v.kind != mappingNode {
		return nil, errorf("metadata must be a map of key: value pairs, not a %s", kindName(v))
	}
	out := make(map[string]string, len(v.content)/2)
	for i := 0; i+1 < len(v.content); i += 2 {
		s, err := text1("metadata."+v.content[i].value, v.content[i+1])
		if err != nil {
			return nil, err
		}
		out[v.content[i].value] = s
	}
	return out, nil
}

func kindName(n *node) string {
	switch n.kind {
	case sequenceNode:
		return "list"
	case mappingNode:
		return "map"
	}
	return "single value"
}
