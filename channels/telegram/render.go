package telegram

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/joshbot/joshbot/channels/internal/angle"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Replies are authored as Markdown and sent as Telegram HTML: HTML needs
// three escapes (&, <, >) where MarkdownV2 needs eighteen, so ordinary prose
// such as snake_case survives. The Markdown is parsed by goldmark
// (CommonMark plus GitHub's tables and strikethrough) and written in the
// subset of HTML Telegram accepts: b, i, u, s, code, pre with
// <code class="language-x">, a href, blockquote and tg-spoiler. What that
// subset lacks is written as text: list markers and their indentation,
// headings as bold lines, tables as preformatted columns. Anything
// Telegram still refuses is resent as the plain Markdown source (see
// sendPiece), so rendering never loses text.

var (
	mdParserOnce sync.Once
	mdParserVal  parser.Parser
)

// mdParser is built on first use, not at package init: most runs of the
// binary never render a Telegram reply.
func mdParser() parser.Parser {
	mdParserOnce.Do(func() { mdParserVal = buildMdParser() })
	return mdParserVal
}

func buildMdParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(literalDelims{}, 450), // before emphasis (500)
			util.Prioritized(strikeParser{}, 500),
		)...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableFinder{}, 200),
		)...),
	)
}

// literalDelims keeps emphasis markers that a model means literally as
// text, where CommonMark would read emphasis: a run of two or more
// underscores (__init__, __name__ stay as written, never bold "init"), and
// a single * between two letters or digits (a*b*c, 2*3*4 are products).
// Every other * and _ is left to goldmark's emphasis parser.
type literalDelims struct{}

func (literalDelims) Trigger() []byte { return []byte{'_', '*'} }

func (literalDelims) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	c := line[0]
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	before := block.PrecendingCharacter()
	after, _ := utf8.DecodeRune(line[n:])
	wordy := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	literal := c == '_' && n >= 2 || c == '*' && n == 1 && wordy(before) && wordy(after)
	if !literal {
		return nil
	}
	block.Advance(n)
	return ast.NewTextSegment(seg.WithStop(seg.Start + n))
}

// renderHTML renders one piece of Markdown. openFence, when not nil, says
// the piece starts inside a code fence opened in an earlier piece with that
// language, so the split is re-balanced in the rendering only: the piece is
// opened as code, and a fence still open at its end is closed.
func renderHTML(md string, openFence *string) string {
	if openFence != nil {
		md = "```" + *openFence + "\n" + md
	}
	// The whitespace around a piece is kept as it is: the chunker splits
	// at spaces and line ends, and the pieces must join back to the text.
	body := strings.TrimRightFunc(md, unicode.IsSpace)
	tail := md[len(body):]
	lead := ""
	if openFence == nil {
		trimmed := strings.TrimLeftFunc(body, unicode.IsSpace)
		lead = body[:len(body)-len(trimmed)]
	}
	src := []byte(body)
	doc := mdParser().Parse(text.NewReader(src))
	r := &tgRenderer{src: src}
	r.blocks(doc, "")
	out := strings.TrimRight(r.b.String(), "\n")
	if fenceAfter(md, nil) != nil && strings.HasSuffix(out, "</code></pre>") {
		// The piece ends inside a fence: its trailing whitespace is code.
		return lead + strings.TrimSuffix(out, "</code></pre>") + tail + "</code></pre>"
	}
	return lead + out + tail
}

// tgRenderer writes one document's Telegram HTML.
type tgRenderer struct {
	src    []byte
	b      strings.Builder
	quote  int      // blockquote depth: Telegram cannot nest them
	open   []string // raw inline tags the author opened, innermost last
	floor  int      // open[:floor] belong to enclosing elements: not closable here
	inLink bool     // inside <a>: Telegram cannot nest links
}

// blocks writes n's block children, each line after the first starting
// with indent. Blocks are separated as the author separated them: by a
// blank line where the source has one, else by a line break.
func (r *tgRenderer) blocks(n ast.Node, indent string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() {
			if gap, ok := r.rawGap(c.PreviousSibling(), c, indent); ok {
				r.b.WriteString(gap)
			} else {
				r.nl(r.separator(c), indent)
			}
		}
		r.block(c, indent)
	}
}

// rawGap is the source between two paragraphs outside lists and quotes
// when it is only whitespace, so spaces at line ends and runs of blank
// lines reach Telegram as written.
func (r *tgRenderer) rawGap(prev, next ast.Node, indent string) (string, bool) {
	if indent != "" || r.quote > 0 || prev.Kind() != ast.KindParagraph || next.Kind() != ast.KindParagraph {
		return "", false
	}
	pl, nl := prev.Lines(), next.Lines()
	if pl.Len() == 0 || nl.Len() == 0 {
		return "", false
	}
	end := contentEnd(r.src, pl.At(pl.Len()-1).Stop)
	start := nl.At(0).Start
	if end > start {
		return "", false
	}
	gap := string(r.src[end:start])
	if strings.TrimSpace(gap) != "" {
		return "", false
	}
	return gap, true
}

// contentEnd moves stop back over trailing whitespace.
func contentEnd(src []byte, stop int) int {
	for stop > 0 && (src[stop-1] == ' ' || src[stop-1] == '\t' || src[stop-1] == '\n' || src[stop-1] == '\r') {
		stop--
	}
	return stop
}

// separator is what goes before block c: a blank line if the source had
// one before it. goldmark marks a block after a closed code fence as
// following a blank line even when none is there, so after a fence the
// source itself is read.
func (r *tgRenderer) separator(c ast.Node) string {
	blank := c.HasBlankPreviousLines()
	if p := c.PreviousSibling(); p != nil && p.Kind() == ast.KindFencedCodeBlock {
		if at, ok := startOf(c); ok {
			blank = blankLineBefore(r.src, at)
		}
	}
	if blank {
		return "\n\n"
	}
	return "\n"
}

// startOf is the source offset where block n's first line starts.
func startOf(n ast.Node) (int, bool) {
	for ; n != nil; n = n.FirstChild() {
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start, true
		}
	}
	return 0, false
}

// blankLineBefore reports whether the line before the one holding offset
// at is blank.
func blankLineBefore(src []byte, at int) bool {
	ls := bytes.LastIndexByte(src[:at], '\n') // end of the previous line
	if ls < 0 {
		return false
	}
	ps := bytes.LastIndexByte(src[:ls], '\n') + 1
	return len(bytes.TrimSpace(src[ps:ls])) == 0
}

// nl writes the line breaks in sep, each followed by indent.
func (r *tgRenderer) nl(sep, indent string) {
	for range strings.Count(sep, "\n") - 1 {
		r.b.WriteString("\n")
	}
	r.b.WriteString("\n" + indent)
}

func (r *tgRenderer) block(n ast.Node, indent string) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		r.inlines(n, indent)
	case *ast.Heading:
		r.b.WriteString("<b>")
		r.inlines(n, indent)
		r.b.WriteString("</b>")
	case *ast.ThematicBreak:
		r.b.WriteString("——————")
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang, _, _ = strings.Cut(string(n.Info.Segment.Value(r.src)), " ")
		}
		r.code(n, lang)
	case *ast.CodeBlock:
		r.code(n, "")
	case *ast.HTMLBlock:
		r.lines(n, indent)
		if n.HasClosure() {
			r.nl("\n", indent)
			r.b.WriteString(angle.Escape(string(n.ClosureLine.Value(r.src))))
		}
	case *ast.Blockquote:
		if r.quote > 0 { // nested: Telegram has no nested quotes
			r.blocks(n, indent)
			return
		}
		r.quote++
		r.b.WriteString("<blockquote>")
		r.blocks(n, indent)
		r.b.WriteString("</blockquote>")
		r.quote--
	case *ast.List:
		r.list(n, indent)
	case *tableNode:
		r.table(n)
	default:
		r.blocks(n, indent)
	}
}

// code writes a code block. Its text is never indented: it is copied as is.
func (r *tgRenderer) code(n ast.Node, lang string) {
	r.b.WriteString(preOpen(lang))
	var body strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		body.Write(seg.Value(r.src))
	}
	r.b.WriteString(angle.Escape(strings.TrimRight(body.String(), "\n")))
	r.b.WriteString("</code></pre>")
}

// lines writes a block's raw lines as escaped text.
func (r *tgRenderer) lines(n ast.Node, indent string) {
	for i := 0; i < n.Lines().Len(); i++ {
		if i > 0 {
			r.nl("\n", indent)
		}
		seg := n.Lines().At(i)
		r.b.WriteString(angle.Escape(strings.TrimRight(string(seg.Value(r.src)), "\r\n")))
	}
}

// list writes each item behind a text marker, "• " or "3. ", its
// continuation lines and nested blocks indented under the item's text.
func (r *tgRenderer) list(l *ast.List, indent string) {
	num := l.Start
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		if c != l.FirstChild() {
			r.nl(r.separator(c), indent)
		}
		marker := "• "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		r.b.WriteString(marker)
		if c.FirstChild() != nil && c.FirstChild().Kind() == ast.KindList {
			// An item that is only a nested list starts on its own line.
			r.nl("\n", indent+"  ")
		}
		r.blocks(c, indent+strings.Repeat(" ", utf8.RuneCountInString(marker)))
	}
}

// table writes a GFM table as preformatted columns: Telegram has no
// tables, and inside <pre> no other markup is allowed, so cells are text.
func (r *tgRenderer) table(t *tableNode) {
	var rows [][]string
	for _, row := range t.rows {
		var cells []string
		for _, cell := range row {
			src := []byte(cell)
			cells = append(cells, strings.TrimSpace(plainText(mdParser().Parse(text.NewReader(src)), src)))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var out strings.Builder
	for ri, row := range rows {
		if ri > 0 {
			out.WriteString("\n")
		}
		for i, c := range row {
			if i > 0 {
				out.WriteString(" | ")
			}
			out.WriteString(c)
			if i < len(row)-1 {
				out.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		if ri == 0 {
			out.WriteString("\n")
			for i, w := range widths {
				if i > 0 {
					out.WriteString("-+-")
				}
				out.WriteString(strings.Repeat("-", w))
			}
		}
	}
	r.b.WriteString("<pre>" + angle.Escape(strings.TrimRight(out.String(), " ")) + "</pre>")
}

// plainText is the text of n's inline content, without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(unescape(c.Segment.Value(src)))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteString(" ")
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.URL(src))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// unescape resolves backslash escapes and character references, as
// CommonMark asks for text outside code.
func unescape(v []byte) string {
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	return string(util.ResolveEntityNames(v))
}

// inlines writes n's inline children, then closes any raw tag the author
// left open in it, so every block's tags balance.
func (r *tgRenderer) inlines(n ast.Node, indent string) {
	r.children(n, indent)
}

// children writes n's inline children as one nesting level: a raw tag
// opened among them is closed before n ends, and a raw closing tag cannot
// close one opened outside n.
func (r *tgRenderer) children(n ast.Node, indent string) {
	mark, floor := len(r.open), r.floor
	r.floor = mark
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c, indent)
	}
	for len(r.open) > mark {
		r.b.WriteString("</" + r.open[len(r.open)-1] + ">")
		r.open = r.open[:len(r.open)-1]
	}
	r.floor = floor
}

func (r *tgRenderer) inline(n ast.Node, indent string) {
	switch n := n.(type) {
	case *ast.Text:
		r.b.WriteString(angle.Escape(unescape(n.Segment.Value(r.src))))
		if n.SoftLineBreak() || n.HardLineBreak() {
			r.lineBreak(n, indent)
		}
	case *ast.String:
		r.b.WriteString(angle.Escape(string(n.Value)))
	case *ast.CodeSpan:
		var b bytes.Buffer
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(r.src))
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		r.b.WriteString("<code>" + angle.Escape(b.String()) + "</code>")
	case *ast.Emphasis:
		tag := "i"
		if n.Level >= 2 {
			tag = "b"
		}
		r.wrap(n, tag, indent)
	case *strikeNode:
		r.wrap(n, "s", indent)
	case *ast.Link:
		r.link(n, string(n.Destination), indent)
	case *ast.Image:
		r.link(n, string(n.Destination), indent)
	case *ast.AutoLink:
		url := string(n.URL(r.src))
		href := url
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			href = "mailto:" + url
		}
		if r.inLink {
			r.b.WriteString(angle.Escape(url))
			return
		}
		r.b.WriteString(`<a href="` + escapeAttr(href) + `">` + angle.Escape(url) + "</a>")
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		r.rawTag(b.String())
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.inline(c, indent)
		}
	}
}

// lineBreak writes the line break after t. Outside lists and quotes the
// source's own whitespace is written (spaces before the break, indentation
// after it), so a paragraph's lines reach Telegram as written.
func (r *tgRenderer) lineBreak(t *ast.Text, indent string) {
	if indent == "" && r.quote == 0 {
		if next, ok := firstTextAfter(t); ok && next >= t.Segment.Stop {
			gap := string(r.src[t.Segment.Stop:next])
			if strings.TrimSpace(gap) == "" && strings.Count(gap, "\n") == 1 {
				r.b.WriteString(gap)
				return
			}
		}
	}
	r.nl("\n", indent)
}

// firstTextAfter is the source offset of the first text that follows t in
// its paragraph.
func firstTextAfter(t ast.Node) (int, bool) {
	for n := t; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock {
			return 0, false
		}
		for s := n.NextSibling(); s != nil; s = s.NextSibling() {
			found, at := false, 0
			_ = ast.Walk(s, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
				if tx, ok := c.(*ast.Text); ok && entering {
					found, at = true, tx.Segment.Start
					return ast.WalkStop, nil
				}
				return ast.WalkContinue, nil
			})
			if found {
				return at, true
			}
			return 0, false // the next inline is not text (e.g. a raw tag)
		}
	}
	return 0, false
}

// wrap writes n's children inside tag.
func (r *tgRenderer) wrap(n ast.Node, tag, indent string) {
	r.b.WriteString("<" + tag + ">")
	r.children(n, indent)
	r.b.WriteString("</" + tag + ">")
}

// link writes a link Telegram accepts (http, https, tg, mailto, ftp); any
// other destination (javascript:, a relative path Telegram would refuse)
// is written back as its Markdown, [text](destination).
func (r *tgRenderer) link(n ast.Node, dest, indent string) {
	scheme, _, ok := strings.Cut(strings.ToLower(dest), ":")
	if ok && (scheme == "http" || scheme == "https" || scheme == "tg" || scheme == "mailto" || scheme == "ftp") {
		if r.inLink { // an image inside a link: the outer link wins
			r.children(n, indent)
			return
		}
		r.inLink = true
		r.b.WriteString(`<a href="` + escapeAttr(dest) + `">`)
		if n.FirstChild() == nil {
			r.b.WriteString(angle.Escape(dest))
		}
		r.children(n, indent)
		r.b.WriteString("</a>")
		r.inLink = false
		return
	}
	r.b.WriteString("[")
	r.children(n, indent)
	r.b.WriteString("](" + angle.Escape(dest) + ")")
}

// rawTagFor maps an inline HTML tag an answer may use on purpose to the
// Telegram tag written for it; any other raw HTML is shown as text.
func rawTagFor(name string) (string, bool) {
	switch name {
	case "b", "strong":
		return "b", true
	case "i", "em":
		return "i", true
	case "u", "ins":
		return "u", true
	case "s", "del", "strike":
		return "s", true
	case "tg-spoiler":
		return "tg-spoiler", true
	}
	return "", false
}

// rawTag writes one raw inline tag: a known opening tag without attributes
// is kept (and closed at the block's end if the author forgot), its
// closing tag only when it closes the innermost open one, <br> as a line
// break; anything else is escaped text.
func (r *tgRenderer) rawTag(raw string) {
	low := strings.ToLower(raw)
	if low == "<br>" || low == "<br/>" || low == "<br />" {
		r.b.WriteString("\n")
		return
	}
	if strings.HasPrefix(low, "</") && strings.HasSuffix(low, ">") {
		if tag, ok := rawTagFor(strings.TrimSpace(low[2 : len(low)-1])); ok && len(r.open) > r.floor && r.open[len(r.open)-1] == tag {
			r.open = r.open[:len(r.open)-1]
			r.b.WriteString("</" + tag + ">")
			return
		}
	} else if strings.HasPrefix(low, "<") && strings.HasSuffix(low, ">") {
		if tag, ok := rawTagFor(low[1 : len(low)-1]); ok {
			r.open = append(r.open, tag)
			r.b.WriteString("<" + tag + ">")
			return
		}
	}
	r.b.WriteString(angle.Escape(raw))
}

func preOpen(lang string) string {
	if lang == "" || strings.ContainsAny(lang, "\"<>& ") {
		return "<pre><code>"
	}
	return `<pre><code class="language-` + lang + `">`
}

// escapeAttr escapes an attribute value written in double quotes.
func escapeAttr(s string) string { return strings.ReplaceAll(angle.Escape(s), `"`, "&quot;") }

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
