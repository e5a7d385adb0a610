package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/gateway"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// gatewayOptions is what `joshbot gateway` runs with.
type gatewayOptions struct {
	// Grace is how long turns in flight may finish after a stop signal.
	Grace time.Duration
}

func (a *app) gatewayCommand() *cobra.Command { return a.newGatewayCommand(a.runGateway) }

// newGatewayCommand wires the gateway flags into gatewayOptions and hands
// them to runF, with a context that SIGINT or SIGTERM cancels (a second
// signal stops the process at once).
func (a *app) newGatewayCommand(runF func(context.Context, *gatewayOptions) error) *cobra.Command {
	opts := &gatewayOptions{}
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the chat channels (Telegram, ...) until stopped",
		Long: "gateway starts every enabled channel, accepts messages from the senders in each\n" +
			"channel's allow_from, and answers them with the agent. Accepted messages are kept in a\n" +
			"durable inbox until answered, so a restart loses none. SIGINT or SIGTERM stop it\n" +
			"gracefully: turns in flight, then the learning and compaction that follow them, get\n" +
			"--grace to finish; a second signal stops it at once.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Once stopping, a second signal stops the process at once.
			context.AfterFunc(ctx, stop)
			return runF(ctx, opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Grace, "grace", 30*time.Second, "how long turns in flight may finish after a stop signal")
	a.addProfileFlag(cmd)
	return cmd
}

// runGateway loads a lenient runtime whose tools report progress (a live
// channel shows a status line while a turn works) and runs the gateway
// over it until ctx ends.
func (a *app) runGateway(ctx context.Context, opts *gatewayOptions) error {
	rt, err := a.loadRuntime(ctx, &runtime.Options{Lenient: true, WrapTools: runtime.ProgressTools})
	if err != nil {
		return err
	}
	defer rt.Close()
	return gateway.New(rt, &gateway.Options{Grace: opts.Grace}).Run(ctx)
}
