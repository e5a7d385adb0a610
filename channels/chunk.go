package channels

import (
	"strings"
	"unicode/utf8"
)

// Chunk splits s into pieces of at most max runes each. It is the only
// splitter adapters use, so no side path can lose text or split
// differently.
//
// The split is loss-free: joining the pieces gives s back exactly. Within
// each window it prefers, in order, a line end outside a code fence, any
// line end, a space, and only then a cut between two runes; a break is
// taken only in the second half of the window so pieces stay reasonably
// full. A line end it breaks on stays at the end of its piece. An empty s
// gives one empty piece; max below 1 is treated as 1.
func Chunk(s string, max int) []string {
	if max < 1 {
		max = 1
	}
	if utf8.RuneCountInString(s) <= max {
		return []string{s}
	}
	var out []string
	inFence := false // whether the rest of s starts inside a fence
	for utf8.RuneCountInString(s) > max {
		window := prefixRunes(s, max)
		cut := breakPoint(window, inFence)
		piece := s[:cut]
		out = append(out, piece)
		inFence = fenceState(piece, inFence)
		s = s[cut:]
	}
	return append(out, s)
}

// prefixRunes returns the longest prefix of s with at most n runes.
func prefixRunes(s string, n int) string {
	i := 0
	for n > 0 && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return s[:i]
}

// breakPoint returns the byte length of the piece to take from window.
func breakPoint(window string, inFence bool) int {
	half := len(window) / 2
	// A line end outside a fence: scan lines, tracking fences.
	best := -1
	state := inFence
	for i := 0; i < len(window); {
		j := strings.IndexByte(window[i:], '\n')
		if j < 0 {
			break
		}
		line := window[i : i+j]
		if isFence(line) {
			state = !state
		}
		end := i + j + 1
		if !state && end > half {
			best = end
		}
		i = end
	}
	if best > 0 {
		return best
	}
	if i := strings.LastIndexByte(window, '\n'); i >= half && i > 0 {
		return i + 1
	}
	if i := strings.LastIndexByte(window, ' '); i >= half && i > 0 {
		return i + 1
	}
	return len(window)
}

// fenceState reports whether text that starts inside (or outside) a fence
// ends inside one.
func fenceState(piece string, inFence bool) bool {
	for _, line := range strings.Split(piece, "\n") {
		if isFence(line) {
			inFence = !inFence
		}
	}
	return inFence
}

func isFence(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), "```")
}
