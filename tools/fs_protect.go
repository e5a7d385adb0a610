package tools

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/sandbox"
)

// ErrProtectedFile is wrapped by the error a file tool returns for a write
// to one of joshbot's own files in the workspace that was not allowed: an
// identity file or skill nobody approved, or the memory files, which only
// the memory module writes.
var ErrProtectedFile = errors.New("is one of joshbot's own files")

// identityFiles go into every conversation's system prompt, so whoever
// rewrites them steers every later turn of every user.
var identityFiles = []string{"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md"}

// memoryFiles change only through the memory module (learning after a
// turn, consolidation), which keeps their format, their scoping per
// session and their size bound.
var memoryFiles = []string{"MEMORY.md", "HISTORY.md"}

// skillsDir holds files of the same standing as the identity files:
// skills are loaded into prompts.
const skillsDir = "skills"

// protection says how a workspace-relative path is guarded: "" for an
// ordinary file, "identity" for one a human must approve, "memory" for one
// no file tool may write. Names are compared case-insensitively, because
// on a case-insensitive filesystem "agents.md" is AGENTS.md.
func protection(rel string) string {
	rel = filepath.ToSlash(rel)
	first, rest, nested := strings.Cut(rel, "/")
	switch {
	case nested && strings.EqualFold(first, skillsDir) && rest != "":
		return "identity"
	case nested:
		return ""
	}
	for _, f := range memoryFiles {
		if strings.EqualFold(rel, f) {
			return "memory"
		}
	}
	for _, f := range identityFiles {
		if strings.EqualFold(rel, f) {
			return "identity"
		}
	}
	return ""
}

// guardWrite refuses or puts to the human a write by tool to real (a
// resolved path inside the workspace) that would change one of joshbot's
// own files. what describes the write for the approval prompt.
func (c *contained) guardWrite(ctx context.Context, tool, real, what string) error {
	rel := c.rel(real)
	switch protection(rel) {
	case "memory":
		return errorf("%s: %s %w: MEMORY.md and HISTORY.md change only through joshbot's memory, never through file tools. "+
			"Facts from the conversation are remembered automatically after each turn; use memory_search to read memory, "+
			"and tell the user if something stored there should change", tool, rel, ErrProtectedFile)
	case "identity":
		if gateApproved(ctx) {
			return nil // the taint gate just asked the human about this call
		}
		req := &sandbox.ApprovalRequest{
			Tool:    tool,
			Command: what,
			Dir:     c.root,
			Reason:  rel + " shapes joshbot's prompt in every conversation, so changing it needs a human's approval",
		}
		d, err := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), req)
		if d != sandbox.Deny {
			return nil
		}
		why := "the human denied it"
		if err != nil {
			why = "no human could approve it here (" + err.Error() + ")"
		}
		return errorf("%s: not written: %s %w (identity files and skills go into every conversation's prompt) and %s. "+
			"Tell the user what you would change, so they can change it themselves", tool, rel, ErrProtectedFile, why)
	}
	return nil
}
