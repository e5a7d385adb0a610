package statecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/mcpclient"
)

// NewMCPCmd is `joshbot mcp` and its subcommands.
func NewMCPCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, trust and untrust the MCP servers declared in config.json",
		Long: "MCP servers are declared under \"mcp\": {\"servers\": {...}} in config.json. A declared\n" +
			"server's tools reach the model only after `joshbot mcp trust <name>`, which approves the\n" +
			"exact tools it advertises; if they change, the approval is revoked. Read `joshbot mcp list` first.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPListCmd(f, runMCPList), newMCPTrustCmd(f, runMCPTrust), newMCPUntrustCmd(f, runMCPUntrust))
	return cmd
}

// mcpOptions is what an mcp command needs of the Factory.
type mcpOptions struct {
	IO    *cmdutil.Streams
	Paths func() (cfgPath, home string, err error)
}

func mcpOf(f *cmdutil.Factory) mcpOptions { return mcpOptions{IO: f.IO, Paths: f.Paths} }

// config loads the config for the mcp commands, which need no provider.
func (o *mcpOptions) config() (*config.Config, string, error) {
	cfgPath, home, err := o.Paths()
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, "", err
	}
	return cfg, home, nil
}

// mcpListOptions is what `mcp list` runs with.
type mcpListOptions struct {
	mcpOptions
	// Output is the command's own --output: text or json.
	Output string
}

func newMCPListCmd(f *cmdutil.Factory, runF func(context.Context, *mcpListOptions) error) *cobra.Command {
	opts := &mcpListOptions{mcpOptions: mcpOf(f)}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start each declared server, show its state and the tools it advertises, then stop it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("output") && opts.IO.Format == output.JSON {
				// The root's --output json, given before "mcp".
				opts.Output = "json"
			}
			if opts.Output != "text" && opts.Output != "json" {
				return errorf("--output %q: use text or json", opts.Output)
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Output, "output", "text", "text or json")
	return cmd
}

func runMCPList(ctx context.Context, opts *mcpListOptions) error {
	cfg, home, err := opts.config()
	if err != nil {
		return err
	}
	store := mcpclient.OpenTrustStore(filepath.Join(home, runtime.MCPTrustFile))
	doc, err := report.InspectMCP(ctx, cfg, store, filepath.Join(home, runtime.ManifestCacheFile), nil)
	if err != nil {
		return err
	}
	if opts.Output == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	report.WriteMCPText(opts.IO.Out, doc)
	return nil
}

// mcpTrustOptions is what `mcp trust` runs with.
type mcpTrustOptions struct {
	mcpOptions
	Name string
	// SHA256 is --sha256: approve only this manifest hash; "" for any.
	SHA256 string
}

func newMCPTrustCmd(f *cmdutil.Factory, runF func(context.Context, *mcpTrustOptions) error) *cobra.Command {
	opts := &mcpTrustOptions{mcpOptions: mcpOf(f)}
	cmd := &cobra.Command{
		Use:   "trust <name>",
		Short: "Approve the tools a declared server advertises now, so they reach the model",
		Long: "Starts the server, reads the tools it advertises, and records a SHA-256 of them in\n" +
			"mcp.trust. Pass --sha256 with the hash `joshbot mcp list` showed to approve only what you read.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.SHA256, "sha256", "", "approve only if the server advertises this manifest hash")
	return cmd
}

func runMCPTrust(ctx context.Context, opts *mcpTrustOptions) error {
	name := opts.Name
	cfg, home, err := opts.config()
	if err != nil {
		return err
	}
	if _, ok := cfg.MCP.Servers[name]; !ok {
		return errorf("no MCP server %q in config: declared servers are %s", name, report.Declared(cfg))
	}
	store := mcpclient.OpenTrustStore(filepath.Join(home, runtime.MCPTrustFile))
	doc, err := report.InspectMCP(ctx, cfg, store, filepath.Join(home, runtime.ManifestCacheFile), []string{name})
	if err != nil {
		return err
	}
	s := doc.Servers[0]
	if s.SHA256 == "" {
		return errorf("mcp server %q did not answer, so there is nothing to approve: %s", name, s.Reason)
	}
	if opts.SHA256 != "" && !strings.EqualFold(opts.SHA256, s.SHA256) {
		return errorf("mcp server %q now advertises sha256 %s, not the %s you reviewed: run `joshbot mcp list` again", name, s.SHA256, opts.SHA256)
	}
	if err := store.Approve(name, s.SHA256); err != nil {
		return err
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "Trusted %s: %d tools, manifest sha256 %s.\n", name, len(s.Tools), s.SHA256)
	for _, t := range s.Tools {
		fmt.Fprintf(out, "  %s\n", t.Name)
	}
	fmt.Fprintln(out, "Its tools are offered from the next start of joshbot; a change to them revokes this approval.")
	return nil
}

// mcpUntrustOptions is what `mcp untrust` runs with.
type mcpUntrustOptions struct {
	mcpOptions
	Name string
}

func newMCPUntrustCmd(f *cmdutil.Factory, runF func(context.Context, *mcpUntrustOptions) error) *cobra.Command {
	opts := &mcpUntrustOptions{mcpOptions: mcpOf(f)}
	return &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw a server's approval",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runF(cmd.Context(), opts)
		},
	}
}

func runMCPUntrust(_ context.Context, opts *mcpUntrustOptions) error {
	_, home, err := opts.Paths()
	if err != nil {
		return err
	}
	store := mcpclient.OpenTrustStore(filepath.Join(home, runtime.MCPTrustFile))
	had, err := store.Remove(opts.Name)
	if err != nil {
		return err
	}
	if !had {
		fmt.Fprintf(opts.IO.Out, "%s was not trusted.\n", opts.Name)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "%s is no longer trusted; its tools are not offered from the next start of joshbot.\n", opts.Name)
	return nil
}
