package bus

import (
	"fmt"
	"strings"
)

// TextWithAttachmentNotes returns m.Text followed by one line per
// attachment naming it, its size and where it came from. A channel that
// cannot carry files sends this instead of Text, so an attachment is
// reported rather than silently dropped.
func (m Outbound) TextWithAttachmentNotes() string {
	if len(m.Attachments) == 0 {
		return m.Text
	}
	var b strings.Builder
	b.WriteString(m.Text)
	for _, a := range m.Attachments {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[attachment not delivered by this channel: %s, %s, %s]", a.Name, humanSize(len(a.Data)), a.SourcePath)
	}
	return b.String()
}

func humanSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
