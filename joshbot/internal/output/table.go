package output

import (
	"io"
	"unicode/utf8"
)

// table aligns tab-terminated cells into columns exactly as
// text/tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) does (a test holds it to
// that), for the few tables this package prints; it saves the binary
// text/tabwriter's general machinery. Write buffers; Flush aligns and
// writes. A cell ends at a tab or vertical tab; a line at a newline or a
// form feed, which also ends every column.
type table struct {
	w   io.Writer
	buf []byte
}

// tablePadding is the space between a column's widest cell and the next.
const tablePadding = 2

// newTable returns a table writing to w.
func newTable(w io.Writer) *table { return &table{w: w} }

// Write buffers p.
func (t *table) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Flush writes what was written since the last Flush, aligned.
func (t *table) Flush() error {
	var a aligner
	var line []string
	start := 0
	for i, c := range t.buf {
		switch c {
		case '\t', '\v':
			line = append(line, string(t.buf[start:i]))
			start = i + 1
		case '\n', '\f':
			a.lines = append(a.lines, append(line, string(t.buf[start:i])))
			line, start = nil, i+1
			if c == '\f' {
				// Every column ends here: align what came before.
				a.lines = append(a.lines, nil)
				a.format(0, len(a.lines))
				a.lines = a.lines[:0]
			}
		}
	}
	if start < len(t.buf) {
		line = append(line, string(t.buf[start:]))
	}
	a.lines = append(a.lines, line)
	a.format(0, len(a.lines))
	t.buf = t.buf[:0]
	_, err := t.w.Write(a.out)
	return err
}

// aligner lays out lines of cells. The last cell of a line is never
// aligned; a column is aligned over each block of consecutive lines that
// have a cell in it followed by another.
type aligner struct {
	lines  [][]string
	widths []int // of the columns in the block being laid out
	out    []byte
}

// format lays out lines[lo:hi], whose columns before len(a.widths) are
// aligned already.
func (a *aligner) format(lo, hi int) {
	col := len(a.widths)
	for i := lo; i < hi; i++ {
		if col >= len(a.lines[i])-1 {
			continue
		}
		a.write(lo, i)
		lo = i
		width := 0
		for ; i < hi && col < len(a.lines[i])-1; i++ {
			width = max(width, utf8.RuneCountInString(a.lines[i][col])+tablePadding)
		}
		a.widths = append(a.widths, width)
		a.format(lo, i)
		a.widths = a.widths[:len(a.widths)-1]
		lo = i
	}
	a.write(lo, hi)
}

// write appends lines[lo:hi] with their cells padded to a.widths. Every
// line but the last of the table ends with a newline.
func (a *aligner) write(lo, hi int) {
	for i := lo; i < hi; i++ {
		for j, cell := range a.lines[i] {
			a.out = append(a.out, cell...)
			if j < len(a.widths) {
				for range a.widths[j] - utf8.RuneCountInString(cell) {
					a.out = append(a.out, ' ')
				}
			}
		}
		if i+1 < len(a.lines) {
			a.out = append(a.out, '\n')
		}
	}
}
