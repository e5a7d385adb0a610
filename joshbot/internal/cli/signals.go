package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals routes the process's SIGINT and SIGTERM to the contexts that
// asked for them (see [sigRouter.catch]).
var signals sigRouter

// sigRouter is signal.NotifyContext without its cost at the end of a
// command. Each os/signal registration and each signal.Stop is a round
// trip to the runtime's signal-mask thread, and every NotifyContext holds
// a goroutine: a one-shot turn paid two registrations, two Stops and two
// goroutines. The router registers each signal once, for the life of the
// process, with one goroutine for all; ending a catch only forgets its
// context. A signal that arrives while no context is catching it gets the
// default action it would have had without the router: the router lets
// the signal go and raises it again, and the process ends by that signal.
type sigRouter struct {
	mu      sync.Mutex
	ch      chan os.Signal
	enabled map[os.Signal]bool
	catches map[os.Signal][]*sigCatch
}

// sigCatch is one context waiting for a signal.
type sigCatch struct {
	cancel context.CancelCauseFunc
}

// signalError is the cause a caught signal gives its context, worded as
// signal.NotifyContext words it.
type signalError string

func (e signalError) Error() string { return string(e) }

// catch returns a copy of parent that is cancelled when sig arrives, and
// a function that stops the catch and releases the context, as
// signal.NotifyContext(parent, sig) does.
func (r *sigRouter) catch(parent context.Context, sig os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	c := &sigCatch{cancel: cancel}
	r.mu.Lock()
	if r.ch == nil {
		r.ch = make(chan os.Signal, 1)
		r.enabled = map[os.Signal]bool{}
		r.catches = map[os.Signal][]*sigCatch{}
		go r.route(r.ch)
	}
	r.catches[sig] = append(r.catches[sig], c)
	if !r.enabled[sig] {
		r.enabled[sig] = true
		signal.Notify(r.ch, sig)
	}
	r.mu.Unlock()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			r.mu.Lock()
			cs := r.catches[sig]
			for i, x := range cs {
				if x == c {
					r.catches[sig] = append(cs[:i:i], cs[i+1:]...)
					break
				}
			}
			r.mu.Unlock()
			cancel(nil)
		})
	}
}

// route delivers each signal from ch to the contexts catching it, or, when
// none is, gives it its default action.
func (r *sigRouter) route(ch chan os.Signal) {
	for s := range ch {
		r.mu.Lock()
		cs := r.catches[s]
		if len(cs) == 0 {
			// Nobody asked for it any more: what would have happened
			// had the handler been removed. signal.Reset makes the
			// runtime end the process on the raised signal.
			r.enabled[s] = false
			signal.Reset(s)
			r.mu.Unlock()
			if n, ok := s.(syscall.Signal); ok {
				syscall.Kill(os.Getpid(), n)
			}
			continue
		}
		for _, c := range cs {
			c.cancel(signalError(s.String() + " signal received"))
		}
		r.mu.Unlock()
	}
}
