package skills

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
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

// reYAMLLine finds the line numbers in go.yaml.in/yaml's messages. It is
// compiled on first use: start-up does no work for it.
var reYAMLLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// parseFrontmatter splits a SKILL.md into its frontmatter and body.
//
// The frontmatter is parsed as real YAML (go.yaml.in/yaml/v3) because
// skills written for other agents use what the Agent Skills format allows:
// lists (allowed-tools), maps (metadata) and folded or literal strings
// (description: >). Unknown keys are ignored, as that format asks; the
// known ones must have the right shape, and any problem is reported with
// its line in the file (line 1 is the opening ---).
func parseFrontmatter(text string) (frontmatter, string, error) {
	var fm frontmatter
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return fm, "", fmt.Errorf("no frontmatter: the file must start with a line \"---\"")
	}
	closing := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			closing = i
			break
		}
	}
	if closing < 0 {
		return fm, "", fmt.Errorf("frontmatter is not closed by a line \"---\"")
	}
	block := strings.Join(lines[1:closing], "\n")
	body := strings.Join(lines[closing+1:], "\n")

	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		// Shift yaml's line numbers (counted from the block) to the file's.
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = reYAMLLine().ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
			return "line " + strconv.Itoa(n+1)
		})
		return fm, "", fmt.Errorf("frontmatter is not valid YAML: %s", msg)
	}
	if len(doc.Content) == 0 {
		return fm, body, nil // empty block: the caller reports what is missing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fm, "", fmt.Errorf("frontmatter line %d: want key: value lines, got a %s", root.Line+1, kindName(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		line := k.Line + 1
		if first, dup := seen[k.Value]; dup {
			return fm, "", fmt.Errorf("frontmatter line %d: %s is given twice (first on line %d)", line, k.Value, first)
		}
		seen[k.Value] = line
		var err error
		switch k.Value {
		case "name":
			fm.Name, err = text1(k.Value, v)
		case "description":
			fm.Description, err = text1(k.Value, v)
			fm.Description = strings.TrimSpace(fm.Description)
		case "license":
			fm.License, err = text1(k.Value, v)
		case "compatibility":
			fm.Compatibility, err = text1(k.Value, v)
		case "allowed-tools":
			fm.AllowedTools, err = toolList(v)
		case "metadata":
			fm.Metadata, err = textMap(v)
		}
		if err != nil {
			return fm, "", fmt.Errorf("frontmatter line %d: %w", line, err)
		}
	}
	return fm, body, nil
}

// text1 decodes a scalar field as text.
func text1(key string, v *yaml.Node) (string, error) {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%s must be text, not a %s (quote it if it holds [ { or a leading - )", key, kindName(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

// toolList decodes allowed-tools: a list of tool names, or one string of
// names separated by spaces.
func toolList(v *yaml.Node) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		return splitTools(v.Value), nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			s, err := text1("each allowed-tools entry", item)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("allowed-tools must be a list of tool names, not a %s", kindName(v))
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
func textMap(v *yaml.Node) (map[string]string, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("metadata must be a map of key: value pairs, not a %s", kindName(v))
	}
	out := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		s, err := text1("metadata."+v.Content[i].Value, v.Content[i+1])
		if err != nil {
			return nil, err
		}
		out[v.Content[i].Value] = s
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "map"
	case yaml.ScalarNode:
		return "single value"
	}
	return "YAML node"
}
