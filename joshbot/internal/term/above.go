package term

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// Above prints lines from other goroutines, such as a background task's
// warnings, above the line being edited: while the line editor holds the
// prompt, [CRLFWriter] with Above set clears the prompt's rows, writes
// the lines there, and draws the prompt and the half-typed entry again
// below them, so typing goes on where it was. At other times it writes as
// usual. Share one Above between [Options.Above] and the CRLFWriter; the
// zero value is ready to use.
type Above struct {
	mu sync.Mutex
	ed *editor // the editor reading a line; nil when none is
}

// attach marks e as reading a line; detach ends it.
func (a *Above) attach(e *editor) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.ed = e
	a.mu.Unlock()
}

func (a *Above) detach() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.ed = nil
	a.mu.Unlock()
}

// lock and unlock guard the editor's drawing against a line printed above
// it; both do nothing on the nil *Above.
func (a *Above) lock() {
	if a != nil {
		a.mu.Lock()
	}
}

func (a *Above) unlock() {
	if a != nil {
		a.mu.Unlock()
	}
}

// write prints p (whole lines, "\n" ends) above the prompt when an editor
// holds one, and reports whether it did.
func (a *Above) write(w io.Writer, p []byte) (bool, error) {
	if a == nil {
		return false, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.ed
	if e == nil || e.shown == nil {
		return false, nil
	}
	var b bytes.Buffer
	if e.cursorRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.cursorRow)
	}
	b.WriteString("\r\x1b[J")
	b.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n")))
	if !bytes.HasSuffix(p, []byte("\n")) {
		b.WriteString("\r\n")
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return true, err
	}
	e.cursorRow = 0
	st := *e.shown
	e.draw(&st)
	return true, nil
}
