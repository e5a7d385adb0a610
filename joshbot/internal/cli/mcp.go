package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/mcpclient"
)

// trustFile is the trust store's name inside the state directory.
const trustFile = runtime.MCPTrustFile

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, trust and untrust the MCP servers declared in config.json",
		Long: "MCP servers are declared under \"mcp\": {\"servers\": {...}} in config.json. A declared\n" +
			"server's tools reach the model only after `joshbot mcp trust <name>`, which approves the\n" +
			"exact tools it advertises; if they change, the approval is revoked. Read `joshbot mcp list` first.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.mcpListCommand(), a.mcpTrustCommand(), a.mcpUntrustCommand())
	return cmd
}

func (a *app) mcpListCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start each declared server, show its state and the tools it advertises, then stop it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output %q: use text or json", output)
			}
			cfg, home, err := a.mcpConfig()
			if err != nil {
				return err
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			doc, err := report.InspectMCP(cmd.Context(), cfg, store, filepath.Join(home, runtime.ManifestCacheFile), nil)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			report.WriteMCPText(a.stdout, doc)
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}

func (a *app) mcpTrustCommand() *cobra.Command {
	var want string
	cmd := &cobra.Command{
		Use:   "trust <name>",
		Short: "Approve the tools a declared server advertises now, so they reach the model",
		Long: "Starts the server, reads the tools it advertises, and records a SHA-256 of them in\n" +
			"mcp.trust. Pass --sha256 with the hash `joshbot mcp list` showed to approve only what you read.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			cfg, home, err := a.mcpConfig()
			if err != nil {
				return err
			}
			if _, ok := cfg.MCP.Servers[name]; !ok {
				return fmt.Errorf("no MCP server %q in config: declared servers are %s", name, report.Declared(cfg))
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			doc, err := report.InspectMCP(cmd.Context(), cfg, store, filepath.Join(home, runtime.ManifestCacheFile), []string{name})
			if err != nil {
				return err
			}
			s := doc.Servers[0]
			if s.SHA256 == "" {
				return fmt.Errorf("mcp server %q did not answer, so there is nothing to approve: %s", name, s.Reason)
			}
			if want != "" && !strings.EqualFold(want, s.SHA256) {
				return fmt.Errorf("mcp server %q now advertises sha256 %s, not the %s you reviewed: run `joshbot mcp list` again", name, s.SHA256, want)
			}
			if err := store.Approve(name, s.SHA256); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Trusted %s: %d tools, manifest sha256 %s.\n", name, len(s.Tools), s.SHA256)
			for _, t := range s.Tools {
				fmt.Fprintf(a.stdout, "  %s\n", t.Name)
			}
			fmt.Fprintln(a.stdout, "Its tools are offered from the next start of joshbot; a change to them revokes this approval.")
			return nil
		},
	}
	cmd.Flags().StringVar(&want, "sha256", "", "approve only if the server advertises this manifest hash")
	return cmd
}

func (a *app) mcpUntrustCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw a server's approval",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, home, err := a.paths()
			if err != nil {
				return err
			}
			store := mcpclient.OpenTrustStore(filepath.Join(home, trustFile))
			had, err := store.Remove(args[0])
			if err != nil {
				return err
			}
			if !had {
				fmt.Fprintf(a.stdout, "%s was not trusted.\n", args[0])
				return nil
			}
			fmt.Fprintf(a.stdout, "%s is no longer trusted; its tools are not offered from the next start of joshbot.\n", args[0])
			return nil
		},
	}
}

// mcpConfig loads the config for the mcp commands, which need no provider.
func (a *app) mcpConfig() (*config.Config, string, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, "", err
	}
	return cfg, home, nil
}
