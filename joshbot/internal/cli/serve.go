package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/serve"
)

// serveOptions is what `joshbot serve` runs with.
type serveOptions struct {
	IO          *cmdutil.Streams
	LoadRuntime func(ctx context.Context, profile string, o *runtime.Options) (*runtime.Runtime, error)

	// Listen replaces api.listen when ListenSet (--listen was given).
	Listen    string
	ListenSet bool
}

func newServe(f *cmdutil.Factory) *cobra.Command { return newServeCommand(f, runServe) }

// newServeCommand wires the serve flags into serveOptions and hands them
// to runF; a test passes its own runF to check the flags alone.
func newServeCommand(f *cmdutil.Factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{IO: f.IO, LoadRuntime: f.LoadRuntime}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the agent over an OpenAI-compatible HTTP API (and, with api.webui, a web chat)",
		Long: "Serves POST /v1/chat/completions, GET /v1/models, POST /v1/embeddings and\n" +
			"POST /v1/audio/transcriptions with bearer authentication (api.api_keys), plus /healthz.\n" +
			"Every chat request runs the full agent; the request's user field selects the conversation.\n" +
			"With api.webui true it also serves a browser chat page at /.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ListenSet = cmd.Flags().Changed("listen")
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "address to bind, host:port (default api.listen, else "+serve.DefaultListen+")")
	return cmd
}

// runServe loads a runtime whose tools report progress, and serves
// the API over it until stopped.
func runServe(ctx context.Context, opts *serveOptions) error {
	rt, err := opts.LoadRuntime(ctx, "", &runtime.Options{WrapTools: runtime.ProgressTools, Prestart: true})
	if err != nil {
		return err
	}
	defer rt.Close()
	srv, err := serve.New(rt, &serve.Options{Listen: opts.Listen, ListenSet: opts.ListenSet, Stdout: opts.IO.Out})
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}
