// Package commands is the one table of joshbot's slash commands. Everything
// that shows or recognizes a command reads it: the agent's /help and its
// unknown-command reply, the CLI's Tab completion, the Telegram command menu
// and the Discord command list. Keeping one table is what makes a command
// read and behave the same on every surface.
//
// Channels never answer a command themselves; they forward the text to the
// agent, which dispatches on the command word with [Parse].
package commands

import (
	"fmt"
	"sort"
	"strings"
)

// Command describes one slash command.
type Command struct {
	// Name is the command word without the slash, such as "model".
	Name string
	// Args is the argument synopsis, such as "[name] [--global]"; empty
	// when the command takes none.
	Args string
	// Summary is one short line for menus (Telegram caps it at 256).
	Summary string
}

// Usage returns "/name args".
func (c Command) Usage() string {
	if c.Args == "" {
		return "/" + c.Name
	}
	return "/" + c.Name + " " + c.Args
}

// Names of the commands, for dispatch without string literals.
const (
	New         = "new"
	Model       = "model"
	Personality = "personality"
	Agent       = "agent"
	Compact     = "compact"
	Status      = "status"
	Help        = "help"
)

// table is kept in menu order.
var table = [...]Command{
	{Name: New, Summary: "Start a new conversation; clears the model and personality chosen for it"},
	{Name: Model, Args: "[name] [--global]", Summary: "Show or switch the model for this conversation (--global: for all)"},
	{Name: Personality, Args: "[name]", Summary: "Show or switch the personality for this conversation"},
	{Name: Agent, Args: "[name]", Summary: "Show or pick a named agent profile for this conversation"},
	{Name: Compact, Summary: "Summarize the conversation so far to free context"},
	{Name: Status, Summary: "Show the model, provider, session size, tools and recent incidents"},
	{Name: Help, Summary: "List the commands"},
}

// All returns the commands in menu order. The slice is a copy.
func All() []Command {
	out := make([]Command, len(table))
	copy(out, table[:])
	return out
}

// Lookup returns the command called name (without the slash).
func Lookup(name string) (Command, bool) {
	for _, c := range table {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Parse splits text into a command word and its arguments. ok is false when
// text is not shaped like a command at all: it must start with '/', and the
// word must be lowercase letters, digits and '_' — so a message such as
// "/etc/hosts looks wrong" is ordinary text for the model. A Telegram-style
// "@botname" suffix on the word is dropped. A well-shaped word that is not
// in the table is still returned with ok true; [Lookup] tells them apart.
func Parse(text string) (name string, args []string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", nil, false
	}
	fields := strings.Fields(text[1:])
	if len(fields) == 0 {
		return "", nil, false
	}
	word, _, _ := strings.Cut(fields[0], "@")
	if word == "" || len(word) > 32 {
		return "", nil, false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return "", nil, false
		}
	}
	return word, fields[1:], true
}

// HelpText renders the table as /help shows it.
func HelpText() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	w := 0
	for _, c := range table {
		w = max(w, len(c.Usage()))
	}
	for _, c := range table {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, c.Usage(), c.Summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// UnknownReply is the answer to a command word that is not in the table.
func UnknownReply(name string) string {
	names := make([]string, len(table))
	for i, c := range table {
		names[i] = "/" + c.Name
	}
	return fmt.Sprintf("Unknown command /%s. Commands: %s. /help explains them.", name, strings.Join(names, ", "))
}

// Complete returns the completions of a partly typed line for the CLI's Tab
// key: every "/name" that starts with prefix, sorted. A prefix that is not a
// bare command word (it has no leading slash, or already has a space)
// completes to nothing.
func Complete(prefix string) []string {
	if !strings.HasPrefix(prefix, "/") || strings.ContainsAny(prefix, " \t") {
		return nil
	}
	var out []string
	for _, c := range table {
		if strings.HasPrefix("/"+c.Name, prefix) {
			out = append(out, "/"+c.Name)
		}
	}
	sort.Strings(out)
	return out
}
