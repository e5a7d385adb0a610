//go:build floordeps

package main

// Built with -tags floordeps, the floor also links the libraries the
// design fixes (cobra, telebot.v3, discordgo, the MCP go-sdk,
// go-landlock, goldmark) and the standard packages joshbot cannot do without. The
// program still does nothing in main, so its time is what the Go runtime
// and those packages' initialization cost before any joshbot code exists.
import (
	_ "crypto/tls"
	_ "encoding/json"
	_ "log/slog"
	_ "net/http"
	_ "regexp"

	_ "github.com/bwmarrin/discordgo"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/spf13/cobra"
	_ "gopkg.in/telebot.v3"

	// goldmark was fixed by issue 23 item 12 (Telegram renders Markdown
	// with it); these are the packages channels/telegram imports.
	_ "github.com/yuin/goldmark/ast"
	_ "github.com/yuin/goldmark/parser"
	_ "github.com/yuin/goldmark/text"
	_ "github.com/yuin/goldmark/util"
)
