package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/tools"
)

// State files of the scheduler.
const (
	cronFile        = "cron.json"
	chatIDsFile     = "chat_ids.json"
	undeliveredFile = "undelivered.jsonl"
)

// scheduler builds the cron scheduler over the runtime's agent for the
// command line: replies for the command line are printed; replies for a
// chat channel, which only the gateway can reach, are kept in
// undelivered.jsonl rather than lost.
func (a *app) scheduler(rt *wired) (*cron.Scheduler, error) {
	out := &cliOutbox{w: a.stdout}
	return a.newScheduler(rt, func(ctx context.Context, m bus.Outbound) error {
		if m.Channel == "cli" {
			m.Text = "[scheduled] " + m.Text
			return out.PublishOutbound(ctx, m)
		}
		return keepUndelivered(filepath.Join(rt.home, undeliveredFile), m)
	})
}

// newScheduler builds a scheduler that runs due jobs as agent turns and
// hands each reply to deliver, addressed to the last chat of its channel.
func (a *app) newScheduler(rt *wired, deliver cron.Deliver) (*cron.Scheduler, error) {
	ids, err := cron.OpenChatIDs(filepath.Join(rt.home, chatIDsFile))
	if err != nil {
		return nil, err
	}
	return cron.NewScheduler(&cron.SchedulerOptions{
		Store:   rt.extras.cron,
		ChatIDs: ids,
		Logger:  a.log,
		Run: func(ctx context.Context, job tools.CronJob, text string) (string, error) {
			// Only the cron tool schedules jobs, so the text is the model's
			// own words from an earlier turn, possibly steered by what it
			// read then: the turn starts tainted and runs unattended.
			r, err := rt.agent.Process(ctx, agent.Request{SessionKey: job.SessionKey, Text: text, Channel: job.Channel, ChatID: job.ChatID,
				Untrusted: "scheduled job " + job.ID + " (its message was written by the model)"})
			if r == nil {
				return "", err
			}
			return r.Text, err
		},
		Deliver: deliver,
	})
}

// gatewayHooks joins the gateway to what this issue added: the message
// tools publish on its bus, each inbound chat is recorded as the last chat
// of its channel (chat_ids.json), and the heartbeat fires scheduled jobs
// into the bus. record is called for every inbound message; stop ends the
// heartbeat and must run before the bus closes.
func (a *app) gatewayHooks(ctx context.Context, rt *wired, b *bus.Bus) (record func(channel, chat string), stop func()) {
	rt.extras.outbox.attach(b)
	ids, err := cron.OpenChatIDs(filepath.Join(rt.home, chatIDsFile))
	if err != nil {
		a.log.Warn("last chats are not recorded; scheduled jobs go to the chat they were made in", "err", err)
		ids = nil
	}
	record = func(channel, chat string) {
		if ids == nil {
			return
		}
		if err := ids.Record(channel, chat); err != nil {
			a.log.Warn("last chat not recorded", "channel", channel, "err", err)
		}
	}
	s, err := a.newScheduler(rt, b.PublishOutbound)
	if err != nil {
		a.log.Warn("scheduled jobs will not fire in the gateway", "err", err)
		return record, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, cron.DefaultHeartbeat)
	}()
	return record, func() {
		cancel()
		<-done
	}
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
		return fmt.Errorf("keep undelivered reply: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("keep undelivered reply: %w", err)
	}
	return fmt.Errorf("no %s channel runs in this process; the reply is kept in %s", m.Channel, tildePath(path))
}

func (a *app) cronCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "Scheduled reminders and recurring jobs",
		Long: "The agent schedules jobs with its cron tool; they are kept in cron.json under the joshbot home.\n" +
			"A running `joshbot agent` conversation fires them; `joshbot cron run` fires what is due once\n" +
			"(for a system crontab).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List every scheduled job",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := a.cronStore()
			if err != nil {
				return err
			}
			jobs, _ := store.List(cmd.Context(), "")
			if len(jobs) == 0 {
				fmt.Fprintln(a.stdout, "No jobs scheduled.")
				return nil
			}
			for _, j := range jobs {
				every := "once"
				if j.Every > 0 {
					every = "every " + j.Every.String()
				}
				fmt.Fprintf(a.stdout, "%s  %s  %-10s  %-20s  %s\n", j.ID, j.Next.Local().Format(time.DateTime), every, j.SessionKey, j.Message)
			}
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove <id>",
		Short: "Remove a scheduled job",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := a.cronStore()
			if err != nil {
				return err
			}
			if err := store.Remove(cmd.Context(), "", args[0]); err != nil {
				if errors.Is(err, tools.ErrJobNotFound) {
					return fmt.Errorf("no job %q: see joshbot cron list", args[0])
				}
				return err
			}
			fmt.Fprintf(a.stdout, "Removed %s.\n", args[0])
			return nil
		},
	}
	run := &cobra.Command{
		Use:   "run",
		Short: "Fire every job that is due now, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.loadRuntime()
			if err != nil {
				return err
			}
			s, err := a.scheduler(rt)
			if err != nil {
				return err
			}
			n, err := s.Tick(cmd.Context())
			// The learning step after each fired turn runs in the
			// background; it must finish before the process exits.
			a.drainAgent(cmd.Context(), rt.agent)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "%d job(s) fired.\n", n)
			return nil
		},
	}
	cmd.AddCommand(list, remove, run)
	return cmd
}

func (a *app) cronStore() (*cron.Store, error) {
	_, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	return cron.OpenStore(filepath.Join(home, cronFile))
}

// registerCron opens the job store and registers the cron tool.
func registerCron(home string, reg *tools.Registry, ex *extras) error {
	store, err := cron.OpenStore(filepath.Join(home, cronFile))
	if err != nil {
		return err
	}
	ex.cron = store
	return tools.RegisterCron(reg, store, nil)
}

// startHeartbeat fires scheduled jobs while an interactive conversation
// runs. The returned stop waits for a job in flight to finish.
func (a *app) startHeartbeat(ctx context.Context, rt *wired) (stop func()) {
	s, err := a.scheduler(rt)
	if err != nil {
		a.log.Warn("scheduled jobs will not fire in this session", "err", err)
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
