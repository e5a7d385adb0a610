package telegram

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The two GitHub extensions replies use, strikethrough and tables, are
// written here rather than taken from goldmark/extension: that package
// (with goldmark's HTML renderer it imports) compiles a dozen regular
// expressions and allocates about 260 KB at program start, in every run
// of the binary, while the parser package alone costs a fraction of that.

// Node kinds are registered on first use, not at package init (a
// sync.OnceValue would itself be init code).
var (
	kindsOnce               sync.Once
	kindStrikeV, kindTableV ast.NodeKind
)

func registerKinds() {
	kindStrikeV = ast.NewNodeKind("TelegramStrike")
	kindTableV = ast.NewNodeKind("TelegramTable")
}

func kindStrike() ast.NodeKind { kindsOnce.Do(registerKinds); return kindStrikeV }

func kindTable() ast.NodeKind { kindsOnce.Do(registerKinds); return kindTableV }

// strikeNode is ~~text~~.
type strikeNode struct{ ast.BaseInline }

func (n *strikeNode) Kind() ast.NodeKind { return kindStrike() }

func (n *strikeNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// strikeDelims is the delimiter processor for ~ and ~~.
type strikeDelims struct{}

func (strikeDelims) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelims) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

func (strikeDelims) OnMatch(int) ast.Node { return &strikeNode{} }

// strikeParser finds runs of one or two tildes that can open or close a
// strikethrough; longer runs stay text.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelims{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// tableNode is a GitHub table: its rows' cells as Markdown source, the
// header first. Telegram has no tables, so only the text is kept.
type tableNode struct {
	ast.BaseBlock
	rows [][]string
}

func (n *tableNode) Kind() ast.NodeKind { return kindTable() }

func (n *tableNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// tableFinder turns a paragraph holding a header row, a delimiter row
// (|---|:--:|) with as many cells, and further rows into a tableNode,
// leaving any lines before the header as the paragraph.
type tableFinder struct{}

func (tableFinder) Transform(p *ast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := p.Lines()
	src := reader.Source()
	lineText := func(i int) string {
		seg := lines.At(i)
		return strings.TrimSpace(string(seg.Value(src)))
	}
	for i := 0; i+1 < lines.Len(); i++ {
		head := splitRow(lineText(i))
		if !strings.Contains(lineText(i), "|") || !isDelimiterRow(lineText(i+1), len(head)) {
			continue
		}
		t := &tableNode{rows: [][]string{head}}
		for j := i + 2; j < lines.Len(); j++ {
			t.rows = append(t.rows, splitRow(lineText(j)))
		}
		t.SetBlankPreviousLines(p.HasBlankPreviousLines())
		parent := p.Parent()
		if i == 0 {
			parent.ReplaceChild(parent, p, t)
			return
		}
		keep := text.NewSegments()
		for k := 0; k < i; k++ {
			keep.Append(lines.At(k))
		}
		p.SetLines(keep)
		t.SetBlankPreviousLines(false)
		parent.InsertAfter(parent, p, t)
		return
	}
}

// splitRow splits a table row at pipes that are neither escaped nor inside
// a code span, dropping the outer pipes.
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cell strings.Builder
	inCode := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		switch {
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
			continue
		case c == '`':
			inCode = !inCode
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
			continue
		}
		cell.WriteByte(c)
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// isDelimiterRow reports whether row is a table's delimiter row with n
// cells: each cell dashes, optionally with colons at either end.
func isDelimiterRow(row string, n int) bool {
	cells := splitRow(row)
	if len(cells) != n {
		return false
	}
	for _, c := range cells {
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}
