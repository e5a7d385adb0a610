package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxPending bounds how much of an unfinished line a Writer holds. A line
// longer than this is redacted and written in pieces.
const maxPending = 64 << 10

// Writer redacts everything written through it, a line at a time, so a
// credential split across two Write calls is still caught. It is safe for
// concurrent use; call Flush (or Close) to write a final unterminated line.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	r    *Redactor
	buf  []byte
	werr error
}

// NewWriter returns a Writer that redacts for the current user onto w.
func NewWriter(w io.Writer) *Writer { return std().NewWriter(w) }

// NewWriter returns a Writer that redacts with r onto w.
func (r *Redactor) NewWriter(w io.Writer) *Writer { return &Writer{w: w, r: r} }

// Write buffers p and writes every complete line, redacted. It reports
// len(p) unless the underlying writer has failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.werr != nil {
		return 0, w.werr
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if err := w.emit(w.buf[:i+1]); err != nil {
			return 0, err
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxPending {
		if err := w.emit(w.buf); err != nil {
			return 0, err
		}
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *Writer) emit(line []byte) error {
	if _, err := io.WriteString(w.w, w.r.String(string(line))); err != nil {
		w.werr = err
		return err
	}
	return nil
}

// Flush writes any buffered partial line, redacted.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 || w.werr != nil {
		return w.werr
	}
	err := w.emit(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Close flushes. It does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }
