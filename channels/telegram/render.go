package telegram

import (
	"fmt"
	"strings"
)

// Replies are authored as Markdown and sent as Telegram HTML: HTML needs
// three escapes (&, <, >) where MarkdownV2 needs eighteen, so ordinary prose
// such as snake_case survives. Anything Telegram still refuses is resent as
// the plain Markdown source (see sendText), so rendering never loses text.

var (
	reLink   = lazyRE(`\[([^\]\n]+)\]\(((?:https?|tg|mailto):[^\s()]+)\)`)
	reBold   = lazyRE(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	reItalA  = lazyRE(`(^|[^\w*])\*([^*\s](?:[^*\n]*?[^*\s])?)\*($|[^\w*])`)
	reItalU  = lazyRE(`(^|[^\w_])_([^_\s](?:[^_\n]*?[^_\s])?)_($|[^\w_])`)
	reStrike = lazyRE(`~~([^~\n]+?)~~`)
	reHead   = lazyRE(`^#{1,6}\s+(.+?)\s*#*$`)
)

// renderHTML renders one piece of Markdown. openFence, when not nil, says
// the piece starts inside a code fence opened in an earlier piece with that
// language, so the split is re-balanced in the rendering only: the piece is
// opened as code, and a fence still open at its end is closed.
func renderHTML(md string, openFence *string) string {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	inFence := openFence != nil
	if inFence {
		b.WriteString(preOpen(*openFence))
	}
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(renderInline(strings.Join(para, "\n")))
			para = para[:0]
		}
	}
	for i, line := range lines {
		last := i == len(lines)-1
		trimmed := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(trimmed, "```") {
			if inFence {
				b.WriteString("</code></pre>")
				inFence = false
			} else {
				flush()
				b.WriteString(preOpen(strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))))
				inFence = true
				continue // the fence line itself is not content
			}
			if !last {
				b.WriteString("\n")
			}
			continue
		}
		if inFence {
			b.WriteString(escapeHTML(line))
			if !last {
				b.WriteString("\n")
			}
			continue
		}
		if m := reHead().FindStringSubmatch(line); m != nil {
			flush()
			b.WriteString("<b>" + renderInline(m[1]) + "</b>")
			if !last {
				b.WriteString("\n")
			}
			continue
		}
		para = append(para, line)
		if !last {
			// Keep line ends exactly where the author put them.
			flush()
			b.WriteString("\n")
		}
	}
	flush()
	if inFence {
		b.WriteString("</code></pre>")
	}
	return b.String()
}

func preOpen(lang string) string {
	if lang == "" || strings.ContainsAny(lang, "\"<>& ") {
		return "<pre><code>"
	}
	return `<pre><code class="language-` + lang + `">`
}

// renderInline renders code spans, links, bold, italic and strikethrough in
// one line of text, escaping everything else.
func renderInline(s string) string {
	var held []string
	hold := func(h string) string {
		held = append(held, h)
		return fmt.Sprintf("\x00%d\x00", len(held)-1)
	}
	// Code spans first: nothing inside them is markup.
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(hold("<code>" + escapeHTML(s[i+1:i+1+j]) + "</code>"))
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	s = escapeHTML(b.String()) // the NUL placeholders pass through

	s = reLink().ReplaceAllStringFunc(s, func(m string) string {
		p := reLink().FindStringSubmatch(m)
		href := strings.ReplaceAll(p[2], `"`, "&quot;")
		return hold(`<a href="`+href+`">`) + p[1] + hold("</a>")
	})
	s = reBold().ReplaceAllStringFunc(s, func(m string) string {
		p := reBold().FindStringSubmatch(m)
		return "<b>" + p[1] + p[2] + "</b>"
	})
	s = reStrike().ReplaceAllString(s, "<s>$1</s>")
	s = reItalA().ReplaceAllString(s, "$1<i>$2</i>$3")
	s = reItalU().ReplaceAllString(s, "$1<i>$2</i>$3")
	// Restore held fragments.
	for i := len(held) - 1; i >= 0; i-- {
		s = strings.ReplaceAll(s, fmt.Sprintf("\x00%d\x00", i), held[i])
	}
	return s
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escapeHTML escapes the three characters Telegram HTML requires.
func escapeHTML(s string) string { return htmlEscaper.Replace(s) }

// fenceAfter reports the fence a piece leaves open, given the one it
// started in (nil for none).
func fenceAfter(piece string, open *string) *string {
	for _, line := range strings.Split(piece, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		if open != nil {
			open = nil
		} else {
			lang := strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			open = &lang
		}
	}
	return open
}
