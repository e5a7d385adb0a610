package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/tools"
)

// State files of the scheduler.
const (
	// CronFile holds the scheduled jobs.
	CronFile = "cron.json"
	// ChatIDsFile holds the last chat of each channel.
	ChatIDsFile     = "chat_ids.json"
	undeliveredFile = "undelivered.jsonl"
)

// Scheduler builds the cron scheduler over the runtime's agent for the
// command line: replies for the command line are printed; replies for a
// chat channel, which only the gateway can reach, are kept in
// undelivered.jsonl rather than lost.
func (rt *Runtime) Scheduler() (*cron.Scheduler, error) {
	out := &CLIOutbox{W: rt.stdout}
	return rt.NewScheduler(func(ctx context.Context, m bus.Outbound) error {
		if m.Channel == "cli" {
			m.Text = "[scheduled] " + m.Text
			return out.PublishOutbound(ctx, m)
		}
		return keepUndelivered(filepath.Join(rt.Home, undeliveredFile), m)
	})
}

// NewScheduler builds a scheduler that runs due jobs as agent turns and
// hands each reply to deliver, addressed to the last chat of its channel.
func (rt *Runtime) NewScheduler(deliver cron.Deliver) (*cron.Scheduler, error) {
	ids, err := cron.OpenChatIDs(filepath.Join(rt.Home, ChatIDsFile))
	if err != nil {
		return nil, err
	}
	return cron.NewScheduler(&cron.SchedulerOptions{
		Store:   rt.Cron,
		ChatIDs: ids,
		Logger:  rt.Logger,
		Run: func(ctx context.Context, job tools.CronJob, text string) (string, error) {
			// Only the cron tool schedules jobs, so the text is the model's
			// own words from an earlier turn, possibly steered by what it
			// read then: the turn starts tainted and runs unattended.
			r, err := rt.Agent.Process(ctx, agent.Request{SessionKey: job.SessionKey, Text: text, Channel: job.Channel, ChatID: job.ChatID,
				Untrusted: "scheduled job " + job.ID + " (its message was written by the model)"})
			if r == nil {
				return "", err
			}
			return r.Text, err
		},
		Deliver: deliver,
	})
}

// keepUndelivered appends m to path (0600) so a reply for a channel this
// process cannot reach is kept for the operator instead of dropped.
func keepUndelivered(path string, m bus.Outbound) error {
	rec := struct {
		Time    time.Time `json:"time"`
		Channel string    `json:"channel"`
		ChatID  string    `json:"chat_id"`
		Text    string    `json:"text"`
	}{time.Now().UTC(), m.Channel, m.ChatID, m.TextWithAttachmentNotes()}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return errorf("keep undelivered reply: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return errorf("keep undelivered reply: %w", err)
	}
	return errorf("no %s channel runs in this process; the reply is kept in %s", m.Channel, config.Tilde(path))
}

// registerCron opens the job store and registers the cron tool.
func registerCron(home string, reg *tools.Registry, rt *Runtime) error {
	store, err := cron.OpenStore(filepath.Join(home, CronFile))
	if err != nil {
		return err
	}
	rt.Cron = store
	return tools.RegisterCron(reg, store, nil)
}

// StartHeartbeat fires scheduled jobs while an interactive conversation
// runs. The returned stop waits for a job in flight to finish.
func (rt *Runtime) StartHeartbeat(ctx context.Context) (stop func()) {
	s, err := rt.Scheduler()
	if err != nil {
		rt.Logger.Warn("scheduled jobs will not fire in this session", "err", err)
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, cron.DefaultHeartbeat)
	}()
	return func() {
		cancel()
		<-done
	}
}
