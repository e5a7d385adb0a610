package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CronJob is one scheduled reminder or recurring job. The conversation it
// belongs to and delivers to comes from the turn that created it, never
// from the model's arguments.
type CronJob struct {
	// ID is assigned by the store.
	ID string `json:"id"`
	// Message is what the agent is told when the job fires.
	Message string `json:"message"`
	// SessionKey, Channel and ChatID are the conversation it belongs to.
	SessionKey string `json:"session_key"`
	Channel    string `json:"channel"`
	ChatID     string `json:"chat_id,omitempty"`
	// Next is when it fires next.
	Next time.Time `json:"next"`
	// Every repeats the job at this interval; zero means it fires once.
	Every time.Duration `json:"every,omitempty"`
	// Created is when it was scheduled.
	Created time.Time `json:"created"`
}

// CronStore keeps scheduled jobs. Implementations must be safe for
// concurrent use and must persist every change before returning.
type CronStore interface {
	// Add stores job, assigning its ID, and returns it.
	Add(ctx context.Context, job CronJob) (CronJob, error)
	// List returns the jobs of one session, soonest first.
	List(ctx context.Context, sessionKey string) ([]CronJob, error)
	// Remove deletes a job of one session; a job of another session is
	// reported as not found.
	Remove(ctx context.Context, sessionKey, id string) error
}

// ErrJobNotFound is returned by [CronStore.Remove] for an unknown id.
var ErrJobNotFound = errors.New("no such scheduled job")

// Cron limits: a shorter interval is a busy loop burning tokens, a longer
// delay is almost certainly a unit mistake.
const (
	MinCronEvery = time.Minute
	MaxCronDelay = 366 * 24 * time.Hour
)

// RegisterCron registers the cron tool on reg, backed by store. now is the
// clock; nil means time.Now.
func RegisterCron(reg *Registry, store CronStore, now func() time.Time) error {
	if reg == nil || store == nil {
		return errors.New("tools: register cron: nil registry or store")
	}
	if now == nil {
		now = time.Now
	}
	return reg.Register(&cronTool{store: store, now: now})
}

type cronTool struct {
	store CronStore
	now   func() time.Time
}

func (*cronTool) Name() string { return "cron" }
func (*cronTool) Description() string {
	return "Schedule reminders and recurring jobs for this conversation. action=add with message and either in (a delay such as \"20m\" or \"2h\") " +
		"or every (a repeat interval, at least 1m); action=list; action=remove with id. When a job fires you are given its message and your answer is sent to this conversation."
}
func (*cronTool) Parameters() json.RawMessage {
	return cronSchema.get()
}

type cronArgs struct {
	Action  string `json:"action" schema:"enum=add|list|remove"`
	Message string `json:"message,omitempty" jsonschema:"what to do or remind when it fires"`
	In      string `json:"in,omitempty" jsonschema:"delay before it fires once, e.g. 10m, 2h30m"`
	Every   string `json:"every,omitempty" jsonschema:"repeat interval, e.g. 1h, 24h"`
	ID      string `json:"id,omitempty" jsonschema:"job id for remove"`
}

var cronSchema = lazySchema{of: (*cronArgs)(nil)}

func (t *cronTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a cronArgs
	if err := decodeArgs("cron", raw, &a); err != nil {
		return "", err
	}
	r, ok := RecipientFromContext(ctx)
	if !ok || r.SessionKey == "" {
		return "", errorf("cron: %w", ErrNoRecipient)
	}
	switch a.Action {
	case "add":
		return t.add(ctx, r, a.Message, a.In, a.Every)
	case "list":
		jobs, err := t.store.List(ctx, r.SessionKey)
		if err != nil {
			return "", errorf("cron: %w", err)
		}
		if len(jobs) == 0 {
			return "No jobs are scheduled for this conversation.", nil
		}
		var b strings.Builder
		for _, j := range jobs {
			fmt.Fprintf(&b, "%s  next %s", j.ID, j.Next.Format(time.RFC3339))
			if j.Every > 0 {
				fmt.Fprintf(&b, ", every %s", j.Every)
			}
			fmt.Fprintf(&b, ": %s\n", j.Message)
		}
		return strings.TrimRight(b.String(), "\n"), nil
	case "remove":
		if a.ID == "" {
			return "", missing("cron", "id")
		}
		if err := t.store.Remove(ctx, r.SessionKey, a.ID); err != nil {
			return "", errorf("cron: remove %s: %w", a.ID, err)
		}
		return "Removed job " + a.ID + ".", nil
	case "":
		return "", missing("cron", "action")
	default:
		return "", errorf("cron: action %q: use add, list or remove", a.Action)
	}
}

func (t *cronTool) add(ctx context.Context, r Recipient, msg, in, every string) (string, error) {
	if strings.TrimSpace(msg) == "" {
		return "", missing("cron", "message")
	}
	if (in == "") == (every == "") {
		return "", errors.New("cron: give exactly one of in (fire once after a delay) or every (repeat)")
	}
	now := t.now()
	job := CronJob{Message: msg, SessionKey: r.SessionKey, Channel: r.Channel, ChatID: r.ChatID, Created: now}
	if in != "" {
		d, err := time.ParseDuration(in)
		if err != nil || d <= 0 || d > MaxCronDelay {
			return "", errorf("cron: in %q: use a positive duration up to %s such as 30m or 2h", in, MaxCronDelay)
		}
		job.Next = now.Add(d)
	} else {
		d, err := time.ParseDuration(every)
		if err != nil || d < MinCronEvery || d > MaxCronDelay {
			return "", errorf("cron: every %q: use a duration from %s to %s such as 1h", every, MinCronEvery, MaxCronDelay)
		}
		job.Every = d
		job.Next = now.Add(d)
	}
	job, err := t.store.Add(ctx, job)
	if err != nil {
		return "", errorf("cron: %w", err)
	}
	if job.Every > 0 {
		return fmt.Sprintf("Scheduled job %s every %s, first at %s.", job.ID, job.Every, job.Next.Format(time.RFC3339)), nil
	}
	return fmt.Sprintf("Scheduled job %s for %s.", job.ID, job.Next.Format(time.RFC3339)), nil
}
