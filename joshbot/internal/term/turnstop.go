package term

import (
	"context"
	"sync"
)

// runningTurn holds the cancel function of the conversation's turn in
// progress, so a Ctrl-C arriving on the signal goroutine can stop it. The
// zero value holds no turn and is ready to use.
type runningTurn struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// set records the turn now running; nil clears it.
func (r *runningTurn) set(cancel context.CancelFunc) {
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
}

// stop cancels the running turn and reports whether there was one.
func (r *runningTurn) stop() bool {
	r.mu.Lock()
	c := r.cancel
	r.mu.Unlock()
	if c == nil {
		return false
	}
	c()
	return true
}

// isExitCommand reports whether a line typed at the prompt ends the
// conversation.
func isExitCommand(text string) bool {
	switch text {
	case "exit", "quit", "/exit", "/quit":
		return true
	}
	return false
}
