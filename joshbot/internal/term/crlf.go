package term

import (
	"bytes"
	"io"
	"sync/atomic"
)

// CRLFWriter writes to a terminal's stderr, turning "\n" into "\r\n"
// while Raw holds true. In raw mode a bare newline moves down without
// returning to the first column, so a log line written while the line
// editor holds the terminal would otherwise run off in a staircase.
type CRLFWriter struct {
	W io.Writer
	// Raw is the flag [Options.Raw] sets while the terminal is raw; nil
	// means never raw.
	Raw *atomic.Bool
	// Above, when not nil, is the [Options.Above] of the conversation:
	// what is written while the line editor holds the prompt goes above
	// the prompt, which is drawn again below it.
	Above *Above
}

// Write writes p, translated while the terminal is raw, and reports
// len(p) on success.
func (c CRLFWriter) Write(p []byte) (int, error) {
	if c.Raw == nil || !c.Raw.Load() {
		return c.W.Write(p)
	}
	if done, err := c.Above.write(c.W, p); done {
		if err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := c.W.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
