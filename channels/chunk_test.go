package channels_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/joshbot/joshbot/channels"
)

func checkChunks(t *testing.T, s string, max int) []string {
	t.Helper()
	parts := channels.Chunk(s, max)
	if got := strings.Join(parts, ""); got != s {
		t.Fatalf("Chunk lost text: joined %d bytes, input %d bytes", len(got), len(s))
	}
	for i, p := range parts {
		if n := utf8.RuneCountInString(p); n > max {
			t.Fatalf("piece %d has %d runes, max %d", i, n, max)
		}
		if !utf8.ValidString(p) && utf8.ValidString(s) {
			t.Fatalf("piece %d splits a rune", i)
		}
		if p == "" && len(parts) > 1 {
			t.Fatalf("empty piece %d", i)
		}
	}
	return parts
}

func TestChunkShortAndEmpty(t *testing.T) {
	if got := channels.Chunk("", 10); len(got) != 1 || got[0] != "" {
		t.Fatalf("empty input: %q", got)
	}
	if got := channels.Chunk("hello", 5); len(got) != 1 {
		t.Fatalf("fits: %q", got)
	}
}

func TestChunkTelegramSizedAnswer(t *testing.T) {
	var b strings.Builder
	for b.Len() < 10000 {
		b.WriteString("A paragraph of ordinary prose that goes on for a while.\n")
	}
	s := b.String()[:10000]
	parts := checkChunks(t, s, 4096)
	if len(parts) != 3 {
		t.Fatalf("10,000 characters at 4,096 made %d pieces, want 3", len(parts))
	}
	for _, p := range parts[:2] {
		if !strings.HasSuffix(p, "\n") {
			t.Errorf("piece does not end at a line end: %q", p[len(p)-20:])
		}
	}
}

func TestChunkPrefersBreakOutsideFence(t *testing.T) {
	prose := strings.Repeat("words and more words\n", 3) // 63 bytes
	code := "```go\n" + strings.Repeat("x := 1\n", 5) + "```\n"
	s := prose + code + "after\n"
	parts := checkChunks(t, s, 100)
	if parts[0] != prose {
		t.Fatalf("first piece should stop before the fence opens:\n%q", parts[0])
	}
}

func TestChunkLongLinesAndRunes(t *testing.T) {
	s := strings.Repeat("🙂", 50) + strings.Repeat("a", 120) + " tail"
	parts := checkChunks(t, s, 30)
	if len(parts) < 6 {
		t.Fatalf("pieces = %d", len(parts))
	}
}

func TestChunkRandomIsLossFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\n", "```", "é", "日本", "🙂", "\t", "```go\n"}
	for i := 0; i < 500; i++ {
		var b strings.Builder
		for n := r.IntN(400); n > 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		checkChunks(t, b.String(), 1+r.IntN(60))
	}
}
