package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
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
// So a signal can also be registered ahead of its catch, in the background
// (see [sigRouter.prepare]), without changing what it does before then.
type sigRouter struct {
	mu sync.Mutex
	ch chan os.Signal
	// enabled holds, for each signal registered or being registered, a
	// channel closed once os/signal delivers it to ch.
	enabled map[os.Signal]chan struct{}
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
	ctx, stop, wait := r.catchSoon(parent, sig)
	wait()
	return ctx, stop
}

// catchSoon is catch with sig registered in the background: sig keeps its
// default action until the registration is done, which wait waits for.
func (r *sigRouter) catchSoon(parent context.Context, sig os.Signal) (ctx context.Context, stop context.CancelFunc, wait func()) {
	ctx, cancel := context.WithCancelCause(parent)
	c := &sigCatch{cancel: cancel}
	r.mu.Lock()
	r.start()
	r.catches[sig] = append(r.catches[sig], c)
	done := r.register(sig)
	r.mu.Unlock()
	var once sync.Once
	stop = func() {
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
	return ctx, stop, func() { <-done }
}

// prepare registers sig with os/signal on a goroutine of its own, so that
// the command's start-up goes on meanwhile and a later catch of sig finds
// it done. Until a catch, sig keeps its default action (see route).
func (r *sigRouter) prepare(sig os.Signal) {
	r.mu.Lock()
	r.register(sig)
	r.mu.Unlock()
}

// register starts registering sig with os/signal on a goroutine, unless
// that is done or under way, and returns a channel closed once os/signal
// delivers sig to the router. r.mu is held.
func (r *sigRouter) register(sig os.Signal) chan struct{} {
	r.start()
	if done, ok := r.enabled[sig]; ok {
		return done
	}
	done := make(chan struct{})
	r.enabled[sig] = done
	go func() {
		signal.Notify(r.ch, sig)
		close(done)
	}()
	return done
}

// start makes the router's channel and starts routing; r.mu is held.
func (r *sigRouter) start() {
	if r.ch != nil {
		return
	}
	r.ch = make(chan os.Signal, 1)
	r.enabled = map[os.Signal]chan struct{}{}
	r.catches = map[os.Signal][]*sigCatch{}
	go r.route(r.ch)
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
			delete(r.enabled, s)
			signal.Reset(s)
			r.mu.Unlock()
			raise(s)
			continue
		}
		for _, c := range cs {
			c.cancel(signalError(s.String() + " signal received"))
		}
		r.mu.Unlock()
	}
}
