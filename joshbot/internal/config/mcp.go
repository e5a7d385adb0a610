package config

import (
	"sort"

	"github.com/joshbot/joshbot/mcpclient"
)

// MCP declares the Model Context Protocol servers whose tools joshbot may
// offer the model, under the "mcp" key.
type MCP struct {
	// Servers maps a server's name to how to run or reach it. The name is
	// part of each of its tools' names (mcp__<name>__<tool>) and the key of
	// its approval in mcp.trust.
	Servers map[string]MCPServer `json:"servers,omitempty"`
}

// MCPServer is one server: a command spoken to over stdio, or the url of a
// Streamable HTTP endpoint. A server's tools reach the model only after
// `joshbot mcp trust <name>`.
type MCPServer struct {
	// Command is the program to run, e.g. "npx".
	Command string `json:"command,omitempty"`
	// Args are its arguments.
	Args []string `json:"args,omitempty"`
	// Env is added to the server's environment as written. joshbot's own
	// environment reaches it only through the sandbox allowlist, so a
	// server needing a token gets it here and nowhere else.
	Env map[string]string `json:"env,omitempty"`
	// URL is a Streamable HTTP endpoint, instead of Command.
	URL string `json:"url,omitempty"`
	// AllowPrivate lets URL be a loopback, private or link-local address,
	// which is refused by default.
	AllowPrivate bool `json:"allow_private,omitempty"`
	// CallTimeout bounds one tool call; zero means 60s.
	CallTimeout Duration `json:"call_timeout,omitzero"`
	// Enabled set to false keeps the server declared but never started;
	// missing means true.
	Enabled *bool `json:"enabled,omitempty"`
}

// IsEnabled reports whether the server should be started.
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// Server converts the declaration named name for the mcpclient module.
func (s MCPServer) Server(name string) mcpclient.Server {
	return mcpclient.Server{
		Name: name, Command: s.Command, Args: s.Args, Env: s.Env,
		URL: s.URL, AllowPrivate: s.AllowPrivate, CallTimeout: s.CallTimeout.Std(),
	}
}

// Names returns the declared server names, sorted.
func (m MCP) Names() []string {
	names := make([]string, 0, len(m.Servers))
	for n := range m.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// validateMCP refuses a server declaration that could not start, naming
// the key to change.
func (c *Config) validateMCP() error {
	for _, name := range c.MCP.Names() {
		s := c.MCP.Servers[name]
		key := "mcp.servers." + name
		if err := mcpclient.ValidateName(name); err != nil {
			return errorf("%s: %v: rename the key", key, err)
		}
		if err := checkDuration(key+".call_timeout", s.CallTimeout); err != nil {
			return err
		}
		if err := s.Server(name).Validate(); err != nil {
			return errorf("%s: %v", key, err)
		}
	}
	return nil
}
