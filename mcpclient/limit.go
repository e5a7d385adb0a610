package mcpclient

import (
	"errors"
	"io"
	"sync"
)

// ErrMessageTooLarge is the reason a connection was killed when its server
// sent a single message over [MaxMessage] bytes.
var ErrMessageTooLarge = errors.New("server sent a message over 4 MiB")

// frameMode says what counts as one message on a stream.
type frameMode int

const (
	// perLine: newline-delimited JSON (stdio).
	perLine frameMode = iota
	// perEvent: server-sent events, which end at a blank line.
	perEvent
	// whole: the whole stream is one message (an application/json body).
	whole
)

// capReader fails a stream on its first message over limit bytes, calling
// onOver once so the owner can kill the connection. Counting happens on the
// bytes as they pass, so memory stays bounded whatever the peer sends.
type capReader struct {
	r      io.ReadCloser
	mode   frameMode
	limit  int
	onOver func()

	mu      sync.Mutex
	frame   int  // bytes of the current message so far
	lineLen int  // bytes of the current line (perEvent)
	over    bool // the limit was hit; every later read fails
}

func newCapReader(r io.ReadCloser, mode frameMode, limit int, onOver func()) *capReader {
	return &capReader{r: r, mode: mode, limit: limit, onOver: onOver}
}

func (c *capReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.over {
		c.mu.Unlock()
		return 0, ErrMessageTooLarge
	}
	c.mu.Unlock()
	n, err := c.r.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range p[:n] {
		c.frame++
		switch c.mode {
		case perLine:
			if b == '\n' {
				c.frame = 0
			}
		case perEvent:
			switch b {
			case '\n':
				if c.lineLen == 0 {
					c.frame = 0
				}
				c.lineLen = 0
			case '\r':
			default:
				c.lineLen++
			}
		}
		if c.frame > c.limit {
			c.over = true
			break
		}
	}
	if c.over {
		if c.onOver != nil {
			go c.onOver()
		}
		return 0, ErrMessageTooLarge
	}
	return n, err
}

func (c *capReader) Close() error { return c.r.Close() }
