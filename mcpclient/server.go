package mcpclient

import (
	"errors"
	"net/url"
	"time"
)

// Default bounds, each overridable where the issue of slow servers calls
// for it.
const (
	// DefaultHandshakeTimeout bounds a server's start, handshake and
	// tools/list together.
	DefaultHandshakeTimeout = 15 * time.Second
	// DefaultCallTimeout bounds one tool call.
	DefaultCallTimeout = 60 * time.Second
	// DefaultRestartDelay is the wait before the one restart of a server
	// that died.
	DefaultRestartDelay = time.Second
	// DefaultHealthTimeout bounds the ping that decides whether a server
	// whose call timed out is alive.
	DefaultHealthTimeout = 5 * time.Second
	// DefaultRestartBudget is how many restarts a server gets within
	// [DefaultRestartWindow].
	DefaultRestartBudget = 3
	// DefaultRestartWindow is the span over which restarts are counted.
	DefaultRestartWindow = 10 * time.Minute
)

// maxServerName keeps mcp__<server>__<tool> inside the 64 characters the
// function-calling APIs allow, with room for a tool name.
const maxServerName = 24

// Server declares one MCP server: a command spoken to over stdio, or the URL
// of a Streamable HTTP endpoint.
type Server struct {
	// Name identifies the server in config, in the trust store and in its
	// tools' names (mcp__<Name>__<tool>): 1 to 24 letters, digits, "-" or
	// single "_".
	Name string
	// Command is the program to run. Exactly one of Command and URL is set.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env is added to the server's environment as written, including
	// credential-shaped names: it is how an operator hands a server its own
	// token. Nothing of joshbot's own environment reaches the server beyond
	// the sandbox module's allowlist.
	Env map[string]string
	// Dir is the working directory; empty means joshbot's.
	Dir string
	// URL is a Streamable HTTP endpoint (http or https).
	URL string
	// AllowPrivate lets URL reach loopback, private and link-local
	// addresses, which are refused by default like web_fetch refuses them.
	AllowPrivate bool
	// CallTimeout bounds one tool call; zero means [DefaultCallTimeout].
	CallTimeout time.Duration
}

// Validate reports the first problem with s, naming the field to change.
func (s Server) Validate() error {
	if err := ValidateName(s.Name); err != nil {
		return err
	}
	switch {
	case s.Command == "" && s.URL == "":
		return errorf("mcp server %q: set command (a program spoken to over stdio) or url (a Streamable HTTP endpoint)", s.Name)
	case s.Command != "" && s.URL != "":
		return errorf("mcp server %q: set command or url, not both", s.Name)
	case s.CallTimeout < 0:
		return errorf("mcp server %q: call_timeout is negative", s.Name)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errorf("mcp server %q: url %q must be an absolute http:// or https:// URL", s.Name, s.URL)
		}
		if u.User != nil {
			return errorf("mcp server %q: url must not carry a user name or password", s.Name)
		}
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Dir != "" {
			return errorf("mcp server %q: args, env and dir apply to a command, not to a url", s.Name)
		}
	}
	if s.Command != "" && s.AllowPrivate {
		return errorf("mcp server %q: allow_private applies to a url, not to a command", s.Name)
	}
	return nil
}

// ValidateName reports whether name can name a server.
func ValidateName(name string) error {
	if name == "" {
		return errors.New("mcp server name is empty")
	}
	if len(name) > maxServerName {
		return errorf("mcp server name %q is over %d characters", name, maxServerName)
	}
	prev := byte('_')
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
		if !ok {
			return errorf("mcp server name %q: use only letters, digits, - and _", name)
		}
		if c == '_' && prev == '_' {
			return errorf("mcp server name %q: no leading or doubled _ (tools are named mcp__<server>__<tool>)", name)
		}
		prev = c
	}
	if prev == '_' {
		return errorf("mcp server name %q: no trailing _", name)
	}
	return nil
}

func (s Server) callTimeout() time.Duration {
	if s.CallTimeout > 0 {
		return s.CallTimeout
	}
	return DefaultCallTimeout
}

func (s Server) transportName() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}
