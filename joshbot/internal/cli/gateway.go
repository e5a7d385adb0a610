package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/gateway"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// gatewayOptions is what `joshbot gateway` runs with.
type gatewayOptions struct {
	LoadRuntime func(ctx context.Context, profile string, o *runtime.Options) (*runtime.Runtime, error)

	// Grace is how long turns in flight may finish after a stop signal.
	Grace time.Duration
	// Profile is --profile.
	Profile string
}

func newGateway(f *cmdutil.Factory) *cobra.Command { return newGatewayCommand(f, runGateway) }

// newGatewayCommand wires the gateway flags into gatewayOptions and hands
// them to runF, with a context that SIGINT or SIGTERM cancels (a second
// signal stops the process at once).
func newGatewayCommand(f *cmdutil.Factory, runF func(context.Context, *gatewayOptions) error) *cobra.Command {
	opts := &gatewayOptions{LoadRuntime: f.LoadRuntime}
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
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	return cmd
}

// runGateway loads a runtime whose tools report progress (a live
// channel shows a status line while a turn works) and runs the gateway
// over it until ctx ends.
func runGateway(ctx context.Context, opts *gatewayOptions) error {
	rt, err := opts.LoadRuntime(ctx, opts.Profile, &runtime.Options{WrapTools: runtime.ProgressTools, Prestart: true})
	if err != nil {
		return err
	}
	defer rt.Close()
	return gateway.New(rt, &gateway.Options{Grace: opts.Grace}).Run(ctx)
}
