package term

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
)

// LineFeed reads a stream a line at a time on one goroutine, started by
// the first Read, so a prompt can give up on a deadline without losing the
// reader. It is safe for use by one reader at a time.
type LineFeed struct {
	once  sync.Once
	r     io.Reader
	lines chan string
	err   chan error
	done  chan struct{}
	stop  sync.Once
}

// NewLineFeed returns a LineFeed over r.
func NewLineFeed(r io.Reader) *LineFeed {
	return &LineFeed{r: r, lines: make(chan string), err: make(chan error, 1), done: make(chan struct{})}
}

// Read returns the next line without its line end. At the end of the
// stream it returns the read error (io.EOF), again on every later call;
// when ctx is done first it returns ctx.Err() and the line, when it
// comes, is kept for the next Read.
func (f *LineFeed) Read(ctx context.Context) (string, error) {
	f.once.Do(func() {
		go func() {
			br := bufio.NewReader(f.r)
			for {
				line, err := br.ReadString('\n')
				if line != "" || err == nil {
					select {
					case f.lines <- strings.TrimRight(line, "\r\n"):
					case <-f.done:
						return
					}
				}
				if err != nil {
					f.err <- err
					return
				}
			}
		}()
	})
	select {
	case l := <-f.lines:
		return l, nil
	case err := <-f.err:
		f.err <- err
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Close lets the reading goroutine end once its current Read of the
// stream returns; it does not interrupt that Read. Read must not be called
// after Close.
func (f *LineFeed) Close() { f.stop.Do(func() { close(f.done) }) }
