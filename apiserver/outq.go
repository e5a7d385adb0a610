package apiserver

import (
	"crypto/sha256"
	"hash"
	"runtime"
	"sync"
	"unicode/utf8"
)

// DefaultStreamBuffer is how many bytes of a streamed answer are held for
// one client that reads slower than the answer is written, when
// Options.StreamBuffer is zero.
const DefaultStreamBuffer = 1 << 20

// tailPiece is the most text one delta frame carries when the rest of an
// answer is written after the turn (see [outq]): small enough that a
// client reading the stream line by line (64 KiB lines are a common
// limit) takes every frame.
const tailPiece = 16 << 10

// outq is the frames of one streamed answer waiting for its client. The
// turn pushes frames without ever waiting for the network, so a client
// that reads slowly, or not at all, cannot hold the turn (and its
// conversation) open; a writer goroutine drains the queue to the client.
// The queue holds at most max bytes: a push beyond that is refused, and
// the stream's text from then on is sent from the saved answer once the
// turn has ended (see [Server.chatStream]).
type outq struct {
	mu     sync.Mutex
	frames [][]byte
	size   int
	max    int
	peak   int
	closed bool
	broken bool // the client is gone: frames are dropped
	wake   chan struct{}
}

func newOutq(max int) *outq {
	if max <= 0 {
		max = DefaultStreamBuffer
	}
	return &outq{max: max, wake: make(chan struct{}, 1)}
}

// push queues frame and reports true, or reports false when it does not
// fit in what is left of the buffer. After the client is gone, frames are
// dropped and push reports true.
//
// When the push wakes the writer, the pushing goroutine yields once. The
// woken writer waits in this processor's run queue until the pusher
// blocks, and a turn whose model sends several chunks at once does not
// block until it has handled them all: on two busy cores that held the
// first byte back by about 0.1 ms. Yielding lets the writer send the frame
// now; it never waits for the client, so the turn still never does.
func (q *outq) push(frame []byte) bool {
	q.mu.Lock()
	if q.broken {
		q.mu.Unlock()
		return true
	}
	if q.size+len(frame) > q.max {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, frame)
	q.size += len(frame)
	q.peak = max(q.peak, q.size)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
		runtime.Gosched()
	default:
	}
	return true
}

// pop returns the next frame, waiting for one; false means the queue is
// closed and empty.
func (q *outq) pop() ([]byte, bool) {
	for {
		q.mu.Lock()
		if len(q.frames) > 0 {
			f := q.frames[0]
			q.frames[0] = nil
			q.frames = q.frames[1:]
			q.size -= len(f)
			q.mu.Unlock()
			return f, true
		}
		if q.closed {
			q.mu.Unlock()
			return nil, false
		}
		q.mu.Unlock()
		<-q.wake
	}
}

// close ends the queue: pop returns what is left, then false.
func (q *outq) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// fail records that the client is gone and drops what is queued.
func (q *outq) fail() {
	q.mu.Lock()
	q.broken = true
	q.frames, q.size = nil, 0
	q.mu.Unlock()
}

func (q *outq) isBroken() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.broken
}

// streamed is the text a stream queued before it fell behind: its length
// and digest, so the rest can be taken from the saved answer without
// keeping a copy of what was sent.
type streamed struct {
	n   int
	sum hash.Hash
}

func newStreamed() *streamed { return &streamed{sum: sha256.New()} }

func (s *streamed) add(text string) {
	s.n += len(text)
	s.sum.Write([]byte(text))
}

// rest returns what answer holds beyond the text streamed so far, and
// false when answer does not begin with that text (the stream showed
// something the answer does not keep).
func (s *streamed) rest(answer string) (string, bool) {
	if len(answer) < s.n {
		return "", false
	}
	h := sha256.New()
	h.Write([]byte(answer[:s.n]))
	if string(h.Sum(nil)) != string(s.sum.Sum(nil)) {
		return "", false
	}
	return answer[s.n:], true
}

// pieces splits text into parts of at most tailPiece bytes, never inside
// a UTF-8 sequence.
func pieces(text string) []string {
	var out []string
	for len(text) > tailPiece {
		cut := tailPiece
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if cut == 0 {
			cut = tailPiece
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}
