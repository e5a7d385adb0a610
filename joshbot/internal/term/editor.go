package term

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errInterrupted is what readLine returns when the person presses Ctrl-C
// at the prompt: the conversation ends, as with Ctrl-D.
var errInterrupted = errors.New("interrupted")

// byteSource yields the bytes typed at the terminal. readByte blocks until
// a byte arrives, input ends, or ctx is done.
type byteSource interface {
	readByte(ctx context.Context) (byte, error)
}

// editor is the line editor of `joshbot agent` on a terminal. The terminal
// must be in raw mode while readLine runs: the editor echoes, moves the
// cursor and wraps lines itself. It redraws only the lines it owns (from
// the prompt's row down), so output printed above them is never touched
// and the prompt is not printed again on each key. It is not safe for
// concurrent use.
type editor struct {
	in  byteSource
	out io.Writer
	// width reports the terminal's columns; it is asked on every redraw
	// so a resized window is followed.
	width func() int
	// history holds earlier lines, oldest first; nil keeps none.
	history *history
	// complete lists the words Tab completes a leading "/word" from.
	complete func() []string

	// above, when not nil, prints other goroutines' lines above the
	// prompt; the editor's drawing holds its lock.
	above *Above
	// shown is the line as last drawn while readLine runs, nil otherwise:
	// what above draws again below a line it printed.
	shown *lineState

	// cursorRow is the row, counted from the prompt's row, where the
	// terminal's cursor was left by the last redraw.
	cursorRow int
}

// lineState is the line being edited.
type lineState struct {
	prompt string
	buf    []rune
	pos    int // cursor index into buf
}

// readLine shows prompt and returns the line the person enters. Enter
// submits; Alt-Enter inserts a newline. It returns io.EOF on Ctrl-D at an
// empty line and errInterrupted on Ctrl-C.
func (e *editor) readLine(ctx context.Context, prompt string) (string, error) {
	st := &lineState{prompt: prompt}
	e.above.lock()
	e.cursorRow = 0
	e.above.unlock()
	e.above.attach(e)
	defer e.above.detach()
	histIdx := e.history.len()
	var draft []rune // the unsent line while browsing history
	e.refresh(st)
	for {
		b, err := e.in.readByte(ctx)
		if err != nil {
			e.finish(st)
			return "", err
		}
		switch b {
		case '\r', '\n':
			e.finish(st)
			line := string(st.buf)
			e.history.add(line)
			return line, nil
		case 3: // Ctrl-C
			e.finish(st)
			return "", errInterrupted
		case 4: // Ctrl-D: leave on an empty line, else delete forward
			if len(st.buf) == 0 {
				e.finish(st)
				return "", io.EOF
			}
			e.deleteAt(st)
		case 127, 8: // Backspace
			if st.pos > 0 {
				st.buf = append(st.buf[:st.pos-1], st.buf[st.pos:]...)
				st.pos--
				e.refresh(st)
			}
		case 1: // Ctrl-A
			e.home(st)
		case 5: // Ctrl-E
			e.end(st)
		case 2: // Ctrl-B
			e.move(st, -1)
		case 6: // Ctrl-F
			e.move(st, +1)
		case 11: // Ctrl-K: cut to the end
			st.buf = st.buf[:st.pos]
			e.refresh(st)
		case 21: // Ctrl-U: cut to the start
			st.buf = st.buf[st.pos:]
			st.pos = 0
			e.refresh(st)
		case 23: // Ctrl-W: cut the word before the cursor
			i := st.pos
			for i > 0 && unicode.IsSpace(st.buf[i-1]) {
				i--
			}
			for i > 0 && !unicode.IsSpace(st.buf[i-1]) {
				i--
			}
			st.buf = append(st.buf[:i], st.buf[st.pos:]...)
			st.pos = i
			e.refresh(st)
		case 12: // Ctrl-L: clear the screen, keep the line
			e.above.lock()
			io.WriteString(e.out, "\x1b[H\x1b[2J")
			e.cursorRow = 0
			e.above.unlock()
			e.refresh(st)
		case '\t':
			e.completeLine(st)
		case 27: // Escape: Alt-Enter or a cursor key's sequence
			key, err := e.readEscape(ctx)
			if err != nil {
				e.finish(st)
				return "", err
			}
			switch key {
			case keyAltEnter:
				e.insert(st, '\n')
			case keyLeft:
				e.move(st, -1)
			case keyRight:
				e.move(st, +1)
			case keyHome:
				e.home(st)
			case keyEnd:
				e.end(st)
			case keyDelete:
				e.deleteAt(st)
			case keyUp, keyDown:
				n := histIdx - 1
				if key == keyDown {
					n = histIdx + 1
				}
				if n < 0 || n > e.history.len() {
					continue
				}
				if histIdx == e.history.len() {
					draft = append([]rune(nil), st.buf...)
				}
				histIdx = n
				if n == e.history.len() {
					st.buf = append([]rune(nil), draft...)
				} else {
					st.buf = []rune(e.history.at(n))
				}
				st.pos = len(st.buf)
				e.refresh(st)
			}
		default:
			if b < 0x20 {
				continue // other control keys do nothing
			}
			r, err := e.readRune(ctx, b)
			if err != nil {
				e.finish(st)
				return "", err
			}
			e.insert(st, r)
		}
	}
}

// The keys an escape sequence can stand for.
const (
	keyNone = iota
	keyAltEnter
	keyUp
	keyDown
	keyLeft
	keyRight
	keyHome
	keyEnd
	keyDelete
)

// readEscape reads what follows an ESC byte: ESC CR is Alt-Enter, CSI and
// SS3 sequences are cursor keys. Unknown sequences are consumed and
// ignored so their bytes never land in the line.
func (e *editor) readEscape(ctx context.Context) (int, error) {
	b, err := e.in.readByte(ctx)
	if err != nil {
		return keyNone, err
	}
	switch b {
	case '\r', '\n':
		return keyAltEnter, nil
	case 'O':
		c, err := e.in.readByte(ctx)
		if err != nil {
			return keyNone, err
		}
		return finalKey(c), nil
	case '[':
	default:
		return keyNone, nil
	}
	// CSI: parameters and intermediates up to a final byte in 0x40..0x7e.
	var params []byte
	for {
		c, err := e.in.readByte(ctx)
		if err != nil {
			return keyNone, err
		}
		if c >= 0x40 && c <= 0x7e {
			if c != '~' {
				return finalKey(c), nil
			}
			switch string(params) {
			case "1", "7":
				return keyHome, nil
			case "4", "8":
				return keyEnd, nil
			case "3":
				return keyDelete, nil
			}
			return keyNone, nil
		}
		if len(params) < 16 {
			params = append(params, c)
		}
	}
}

func finalKey(c byte) int {
	switch c {
	case 'A':
		return keyUp
	case 'B':
		return keyDown
	case 'C':
		return keyRight
	case 'D':
		return keyLeft
	case 'H':
		return keyHome
	case 'F':
		return keyEnd
	}
	return keyNone
}

// readRune completes the UTF-8 sequence that starts with b. A malformed
// sequence becomes U+FFFD rather than stray bytes in the line.
func (e *editor) readRune(ctx context.Context, b byte) (rune, error) {
	if b < utf8.RuneSelf {
		return rune(b), nil
	}
	n := 0
	switch {
	case b&0xe0 == 0xc0:
		n = 2
	case b&0xf0 == 0xe0:
		n = 3
	case b&0xf8 == 0xf0:
		n = 4
	default:
		return utf8.RuneError, nil
	}
	p := []byte{b}
	for len(p) < n {
		c, err := e.in.readByte(ctx)
		if err != nil {
			return 0, err
		}
		p = append(p, c)
	}
	r, _ := utf8.DecodeRune(p)
	return r, nil
}

func (e *editor) insert(st *lineState, r rune) {
	atEnd := st.pos == len(st.buf)
	st.buf = append(st.buf, 0)
	copy(st.buf[st.pos+1:], st.buf[st.pos:])
	st.buf[st.pos] = r
	st.pos++
	// Typing at the end of a line that does not reach the right edge
	// needs only the character itself.
	if atEnd && r != '\n' && runeWidth(r) > 0 {
		lay := layout(st, e.cols())
		e.above.lock()
		if lay.end.col > 0 && lay.end.col < e.cols() && lay.end.row == e.cursorRow && !lay.endWrapped {
			io.WriteString(e.out, string(r))
			e.shown = &lineState{prompt: st.prompt, buf: append([]rune(nil), st.buf...), pos: st.pos}
			e.above.unlock()
			return
		}
		e.above.unlock()
	}
	e.refresh(st)
}

func (e *editor) deleteAt(st *lineState) {
	if st.pos < len(st.buf) {
		st.buf = append(st.buf[:st.pos], st.buf[st.pos+1:]...)
		e.refresh(st)
	}
}

func (e *editor) move(st *lineState, d int) {
	if p := st.pos + d; p >= 0 && p <= len(st.buf) {
		st.pos = p
		e.refresh(st)
	}
}

// home moves to the start of the current line of a multi-line entry.
func (e *editor) home(st *lineState) {
	for st.pos > 0 && st.buf[st.pos-1] != '\n' {
		st.pos--
	}
	e.refresh(st)
}

// end moves to the end of the current line of a multi-line entry.
func (e *editor) end(st *lineState) {
	for st.pos < len(st.buf) && st.buf[st.pos] != '\n' {
		st.pos++
	}
	e.refresh(st)
}

// completeLine completes a leading slash command at the cursor: one match
// is filled in with a space after it, several are narrowed to their
// common prefix, and when that adds nothing they are listed below.
func (e *editor) completeLine(st *lineState) {
	if e.complete == nil || len(st.buf) == 0 || st.buf[0] != '/' || st.pos != len(st.buf) || strings.ContainsAny(string(st.buf), " \n") {
		return
	}
	word := string(st.buf)
	var matches []string
	for _, c := range e.complete() {
		if strings.HasPrefix(c, word) {
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	matches = dedup(matches)
	switch len(matches) {
	case 0:
		return
	case 1:
		st.buf = []rune(matches[0] + " ")
		st.pos = len(st.buf)
		e.refresh(st)
		return
	}
	if p := commonPrefix(matches); len(p) > len(word) {
		st.buf = []rune(p)
		st.pos = len(st.buf)
		e.refresh(st)
		return
	}
	e.finish(st)
	e.above.lock()
	io.WriteString(e.out, strings.Join(matches, "  ")+"\r\n")
	e.cursorRow = 0
	e.above.unlock()
	e.refresh(st)
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func commonPrefix(s []string) string {
	p := s[0]
	for _, v := range s[1:] {
		for !strings.HasPrefix(v, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

func (e *editor) cols() int {
	if e.width != nil {
		if w := e.width(); w > 0 {
			return w
		}
	}
	return 80
}

// finish leaves the cursor on a fresh line below the entry, as Enter in a
// cooked terminal would.
func (e *editor) finish(st *lineState) {
	e.above.lock()
	defer e.above.unlock()
	st.pos = len(st.buf)
	e.draw(st)
	io.WriteString(e.out, "\r\n")
	e.cursorRow = 0
	e.shown = nil
}

// cell is a screen position relative to the prompt's first column.
type cell struct{ row, col int }

// lineLayout is where each rune of the entry lands on the screen.
type lineLayout struct {
	at  []cell // at[i] is where the cursor stands before rune i
	end cell   // where the cursor stands after the last rune
	// endWrapped is true when the last rune filled the last column: the
	// terminal then holds its cursor at the edge, and the editor moves it
	// to the next row itself so its idea of the cursor stays true.
	endWrapped bool
}

// layout places the prompt and the entry on a screen cols wide: wide
// characters take two columns and move whole to the next row when only
// one is left, as terminals do; a newline in the entry starts a row.
func layout(st *lineState, cols int) lineLayout {
	var lay lineLayout
	row, col := 0, 0
	place := func(w int) {
		if col >= cols {
			row, col = row+1, 0
		}
		if col+w > cols {
			row, col = row+1, 0
		}
		col += w
	}
	for _, r := range st.prompt {
		place(runeWidth(r))
	}
	lay.at = make([]cell, len(st.buf))
	for i, r := range st.buf {
		if col >= cols || (r != '\n' && col+runeWidth(r) > cols) {
			row, col = row+1, 0
		}
		lay.at[i] = cell{row, col}
		if r == '\n' {
			row, col = row+1, 0
			continue
		}
		place(runeWidth(r))
	}
	if col >= cols {
		row, col = row+1, 0
		lay.endWrapped = true
	}
	lay.end = cell{row, col}
	return lay
}

// refresh redraws the prompt and the entry in place: back up to the
// prompt's row, clear to the end of the screen, write, and put the cursor
// where it belongs.
func (e *editor) refresh(st *lineState) {
	e.above.lock()
	defer e.above.unlock()
	e.draw(st)
}

// draw is refresh with the lock of above held (or none), and records
// what it drew in shown.
func (e *editor) draw(st *lineState) {
	e.shown = &lineState{prompt: st.prompt, buf: append([]rune(nil), st.buf...), pos: st.pos}
	cols := e.cols()
	lay := layout(st, cols)
	var b bytes.Buffer
	if e.cursorRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.cursorRow)
	}
	b.WriteString("\r\x1b[J")
	b.WriteString(st.prompt)
	for _, r := range st.buf {
		if r == '\n' {
			b.WriteString("\r\n")
			continue
		}
		b.WriteRune(r)
	}
	if lay.endWrapped {
		b.WriteString("\r\n")
	}
	cur := lay.end
	if st.pos < len(st.buf) {
		cur = lay.at[st.pos]
	}
	if up := lay.end.row - cur.row; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if cur.col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", cur.col)
	}
	e.cursorRow = cur.row
	e.out.Write(b.Bytes())
}

// runeWidth is the number of terminal columns r takes: 0 for combining
// and format characters, 2 for East Asian wide and fullwidth characters
// and emoji, 1 otherwise. The ranges follow the Unicode East Asian Width
// property's W and F classes that terminals honour; a table this size
// beats a dependency for one function.
func runeWidth(r rune) int {
	switch {
	case r == 0:
		return 0
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	for _, rg := range wideRanges {
		if r < rg[0] {
			return 1
		}
		if r <= rg[1] {
			return 2
		}
	}
	return 1
}

// wideRanges are the double-width ranges, sorted.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
	{0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
	{0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
	{0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
	{0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF},
	{0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251},
	{0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
	{0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440},
	{0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A},
	{0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
	{0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB},
	{0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD},
	{0x30000, 0x3FFFD},
}
