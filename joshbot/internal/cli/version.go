package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/spf13/cobra"
)

// version is set at release build time with
// -ldflags "-X github.com/joshbot/joshbot/joshbot/internal/cli.version=v1.2.3".
var version = "dev"

// versionString describes this build in one line.
func versionString() string {
	v := version
	if v == "dev" {
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("joshbot %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionOptions is what `joshbot version` runs with.
type versionOptions struct{ IO *cmdutil.Streams }

func newVersionCmd(f *cmdutil.Factory) *cobra.Command { return newVersionCommand(f, runVersion) }

func newVersionCommand(f *cmdutil.Factory, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: f.IO}
	return &cobra.Command{
		Use:         "version",
		Short:       "Print the version",
		Annotations: map[string]string{quickCommand: "yes"},
		Args:        cobra.NoArgs,
		RunE:        func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runVersion(_ context.Context, opts *versionOptions) error {
	_, err := fmt.Fprintln(opts.IO.Out, versionString())
	return err
}
