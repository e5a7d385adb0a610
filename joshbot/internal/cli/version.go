package cli

import (
	"context"
	"runtime"
	"runtime/debug"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/spf13/cobra"
)

// version is set at release build time with
// -ldflags "-X github.com/joshbot/joshbot/joshbot/internal/cli.version=v1.2.3".
var version = "dev"

// versionDoc describes this build: the release version, else the module
// version go install recorded, else "dev".
func versionDoc() *output.Version {
	v := version
	if v == "dev" {
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return &output.Version{SchemaVersion: output.SchemaVersion, Version: v, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
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
	return output.Write(opts.IO.Out, opts.IO.Format, versionDoc())
}
