package tools

import (
	"path"
	"strings"
)

// globPattern is a parsed glob: slash-separated segments, each either "**"
// (any number of whole path segments, including none) or a path.Match
// pattern for exactly one segment.
type globPattern []string

// parseGlob splits and checks a pattern. It refuses absolute patterns and
// ".." segments because the pattern is meant to pick files below a
// directory, never to climb out of it.
func parseGlob(pattern string) (globPattern, error) {
	if pattern == "" {
		return nil, errorf("pattern is empty")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, errorf("pattern %q is absolute; give a pattern relative to path (or the workspace)", pattern)
	}
	var segs globPattern
	for _, s := range strings.Split(pattern, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, errorf("pattern %q contains \"..\"; set path to choose the directory to search instead", pattern)
		case "**":
			// Adjacent "**" mean the same as one and would only multiply the
			// matching work.
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue
			}
		default:
			if _, err := path.Match(s, ""); err != nil {
				return nil, errorf("pattern %q: segment %q is malformed: %w", pattern, s, err)
			}
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return nil, errorf("pattern %q matches nothing; try \"**/*\" for everything", pattern)
	}
	return segs, nil
}

// match reports whether the path split into name segments matches g.
func (g globPattern) match(name []string) bool { return matchSegments(g, name, false) }

// couldMatchBelow reports whether something inside the directory dir (split
// into segments) might match g, so a walk can skip directories that cannot.
func (g globPattern) couldMatchBelow(dir []string) bool { return matchSegments(g, dir, true) }

// matchSegments matches name against pat. With prefix set, running out of
// name before pat counts as success: a longer name could still match.
func matchSegments(pat, name []string, prefix bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if matchSegments(rest, name[i:], prefix) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return prefix
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
