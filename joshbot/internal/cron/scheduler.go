package cron

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// Runner runs one scheduled turn and returns the text to deliver. The
// binary passes a function over agent.Process.
type Runner func(ctx context.Context, job tools.CronJob, text string) (string, error)

// Deliver sends a finished scheduled turn to its conversation. The CLI
// prints and records it; the gateway publishes it on the bus for the
// channel adapters.
type Deliver func(ctx context.Context, m bus.Outbound) error

// DefaultHeartbeat is how often due jobs are checked.
const DefaultHeartbeat = 30 * time.Second

// SchedulerOptions configures a [Scheduler]. Store, Run and Deliver are
// required.
type SchedulerOptions struct {
	Store   *Store
	Run     Runner
	Deliver Deliver
	// ChatIDs, when set, redirects a delivery to the last chat seen on the
	// job's channel; nil delivers to the chat the job was created in.
	ChatIDs *ChatIDs
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Scheduler fires due jobs. Tick is safe to call from one goroutine at a
// time; Run calls it on every heartbeat.
type Scheduler struct {
	o SchedulerOptions
}

// NewScheduler checks opts and returns a Scheduler.
func NewScheduler(opts *SchedulerOptions) (*Scheduler, error) {
	if opts == nil || opts.Store == nil || opts.Run == nil || opts.Deliver == nil {
		return nil, errors.New("cron: a store, a runner and a delivery are required")
	}
	s := &Scheduler{o: *opts}
	if s.o.Now == nil {
		s.o.Now = time.Now
	}
	if s.o.Logger == nil {
		s.o.Logger = slog.Default()
	}
	return s, nil
}

// Prompt is how a fired job is put to the agent, so the model knows
// nobody is waiting at the keyboard.
func Prompt(job tools.CronJob) string {
	kind := "reminder"
	if job.Every > 0 {
		kind = "recurring job (every " + job.Every.String() + ")"
	}
	return fmt.Sprintf("[Scheduled %s %s, set %s. No one is at the keyboard: act on it and reply with what the user should read.]\n%s",
		kind, job.ID, job.Created.Format(time.RFC3339), job.Message)
}

// Tick fires every job due now and returns how many ran. A job that fails
// is logged and delivered as a short failure notice, so a reminder is never
// silently lost.
func (s *Scheduler) Tick(ctx context.Context) (int, error) {
	jobs, err := s.o.Store.takeDue(s.o.Now())
	if err != nil {
		return 0, err
	}
	for _, job := range jobs {
		// A scheduled turn has no human: whatever approver the caller's
		// context carries is replaced by the one that denies.
		jctx := sandbox.WithApprover(ctx, sandbox.DenyAll)
		text, err := s.o.Run(jctx, job, Prompt(job))
		if err != nil {
			s.o.Logger.Warn("scheduled job failed", "job", job.ID, "session", job.SessionKey, "err", err)
			if text == "" {
				text = fmt.Sprintf("A scheduled job (%s: %q) failed: %v", job.ID, job.Message, err)
			}
		}
		to := job.ChatID
		if s.o.ChatIDs != nil {
			if id, ok := s.o.ChatIDs.Last(job.Channel); ok {
				to = id
			}
		}
		if err := s.o.Deliver(ctx, bus.Outbound{Channel: job.Channel, ChatID: to, Text: text}); err != nil {
			s.o.Logger.Error("scheduled job not delivered", "job", job.ID, "channel", job.Channel, "err", err)
		}
	}
	return len(jobs), nil
}

// Run ticks every interval (zero means DefaultHeartbeat) until ctx ends.
func (s *Scheduler) Run(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultHeartbeat
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Tick(ctx); err != nil {
			s.o.Logger.Error("cron heartbeat", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
