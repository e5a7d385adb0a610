package term

import (
	"context"
	"errors"
	"io"
	"strings"
)

// keyReader reads standard input on one goroutine and hands out its bytes,
// so both the line editor and the approval prompt read from one place and
// a wait can give up on a context without losing the reader. It is safe
// for use by one reader at a time.
type keyReader struct {
	chunks chan []byte
	errc   chan error
	done   chan struct{}
	buf    []byte
	err    error
}

// newKeyReader starts reading r. close lets the reading goroutine end once
// its Read returns, instead of waiting for a reader that is gone.
func newKeyReader(r io.Reader) *keyReader {
	k := &keyReader{chunks: make(chan []byte), errc: make(chan error, 1), done: make(chan struct{})}
	go func() {
		for {
			p := make([]byte, 256)
			n, err := r.Read(p)
			if n > 0 {
				select {
				case k.chunks <- p[:n]:
				case <-k.done:
					return
				}
			}
			if err != nil {
				k.errc <- err
				return
			}
		}
	}()
	return k
}

// close stops handing out bytes; it does not interrupt a Read in progress.
func (k *keyReader) close() { close(k.done) }

func (k *keyReader) readByte(ctx context.Context) (byte, error) {
	for len(k.buf) == 0 {
		if k.err != nil {
			return 0, k.err
		}
		select {
		case p := <-k.chunks:
			k.buf = p
		case err := <-k.errc:
			k.err = err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	b := k.buf[0]
	k.buf = k.buf[1:]
	return b, nil
}

// readCookedLine reads one line while the terminal is in its normal
// (cooked) mode, where the kernel echoes and edits: the approval prompt
// asked in the middle of a turn uses it.
func (k *keyReader) readCookedLine(ctx context.Context) (string, error) {
	var line []byte
	for {
		b, err := k.readByte(ctx)
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return string(line), nil
			}
			return "", err
		}
		if b == '\n' {
			return strings.TrimRight(string(line), "\r"), nil
		}
		line = append(line, b)
	}
}
