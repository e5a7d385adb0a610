package channels

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/joshbot/joshbot/bus"
)

// DefaultMaxChunks is how many messages one reply may take by default.
// Past it the reply goes as a document (see [LongReply]): nobody reads
// two hundred messages, and a chat flooded with them is blocked for the
// next question.
const DefaultMaxChunks = 8

// ReplyDocumentName is the file name a reply too long for messages is
// attached under.
const ReplyDocumentName = "reply.md"

// longReplyHead is the most runes of a long reply shown before its
// document, so the chat shows what the answer is about.
const longReplyHead = 1500

// LongReply rewrites msg for an adapter that would need pieces messages
// for msg.Text, when that is more than maxChunks (zero means
// [DefaultMaxChunks]); otherwise it returns msg unchanged and false. The
// rewritten reply is a short head (the opening of the text, cut at a good
// break, and a line saying where the rest is) with the whole text attached
// as [ReplyDocumentName] ahead of msg.Files, the way people share long
// text. When the text is larger than maxFile bytes (the platform's upload
// limit; zero means no limit), the document holds its first maxFile bytes,
// cut between two runes, the head says so, and cut is how many bytes were
// left out, for the adapter to log.
func LongReply(msg Outbound, pieces, maxChunks int, maxFile int64) (out Outbound, cut int, long bool) {
	if maxChunks <= 0 {
		maxChunks = DefaultMaxChunks
	}
	if pieces <= maxChunks {
		return msg, 0, false
	}
	doc := msg.Text
	if maxFile > 0 && int64(len(doc)) > maxFile {
		n := int(maxFile)
		for n > 0 && !utf8.RuneStart(doc[n]) {
			n--
		}
		cut = len(doc) - n
		doc = doc[:n]
	}
	// Only the opening is split: splitting a 32 MiB text whole would take
	// longer than the shutdown grace.
	head := Chunk(prefixRunes(msg.Text, 2*longReplyHead), longReplyHead)[0]
	head = strings.TrimRight(head, " \n")
	if head != strings.TrimRight(msg.Text, " \n") {
		head += " …"
	}
	note := fmt.Sprintf("The whole answer (%s) is attached as %s.", sizeText(len(msg.Text)), ReplyDocumentName)
	if cut > 0 {
		note = fmt.Sprintf("The answer is %s, more than can be attached here: %s holds its first %s.",
			sizeText(len(msg.Text)), ReplyDocumentName, sizeText(len(doc)))
	}
	out = msg
	out.Text = head + "\n\n" + note
	out.Files = append([]bus.Attachment{{Name: ReplyDocumentName, MIME: "text/markdown; charset=utf-8", Data: []byte(doc)}}, msg.Files...)
	return out, cut, true
}

// sizeText writes n bytes for people: "812 bytes", "14 KB", "1.0 MB".
func sizeText(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d KB", n/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// PieceCount is how many messages split makes of text, for a platform
// whose messages hold at most limit runes, counted only as far as the
// cap of maxChunks (zero means [DefaultMaxChunks]) matters: a text that
// plainly needs more than the cap is not split just to be counted, and
// counts as maxChunks+1. It is the pieces argument of [LongReply].
func PieceCount(text string, maxChunks, limit int, split func(string) []string) int {
	if maxChunks <= 0 {
		maxChunks = DefaultMaxChunks
	}
	if len(text) > 4*limit*maxChunks || utf8.RuneCountInString(text) > limit*maxChunks {
		return maxChunks + 1
	}
	return len(split(text))
}
