package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ScratchDir is the workspace's scratch area: a turn that has read
// untrusted text may still write below it without asking anyone, since
// nothing there is read back into joshbot's prompt or run on its own.
// Everything else a tainted turn writes needs a human's approval.
const ScratchDir = "scratch"

// The declarations below say, per built-in tool, whether its results carry
// outside text ([Untrusted]) and which of its calls act ([Actor]). They
// sit together so the whole policy reads in one place.

var (
	_ Untrusted = (*readFileTool)(nil)
	_ Untrusted = (*grepTool)(nil)
	_ Untrusted = (*WebFetch)(nil)
	_ Untrusted = (*webSearchTool)(nil)
	_ Untrusted = (*Shell)(nil)
	_ Untrusted = (*memorySearchTool)(nil)

	_ Actor = (*Shell)(nil)
	_ Actor = (*writeFileTool)(nil)
	_ Actor = (*editFileTool)(nil)
	_ Actor = (*messageTool)(nil)
	_ Actor = (*sendFileTool)(nil)
	_ Actor = (*cronTool)(nil)
	_ Actor = (*configTool)(nil)
	_ Actor = (*profilesTool)(nil)
	_ Actor = (*subagentTool)(nil)
	_ Actor = (*parallelTool)(nil)
	_ Actor = (*chainTool)(nil)
	_ Actor = (*delegateTool)(nil)
)

// ReturnsUntrusted implements [Untrusted]: a file's content is outside text.
func (*readFileTool) ReturnsUntrusted() bool { return true }

// ReturnsUntrusted implements [Untrusted]: matching lines are file content.
func (*grepTool) ReturnsUntrusted() bool { return true }

// ReturnsUntrusted implements [Untrusted]: a web page is outside text.
func (*WebFetch) ReturnsUntrusted() bool { return true }

// ReturnsUntrusted implements [Untrusted]: search snippets are outside text.
func (*webSearchTool) ReturnsUntrusted() bool { return true }

// ReturnsUntrusted implements [Untrusted]: a command prints what it read.
func (*Shell) ReturnsUntrusted() bool { return true }

// ReturnsUntrusted implements [Untrusted]: the history log holds what
// other turns (and so their untrusted inputs) wrote.
func (*memorySearchTool) ReturnsUntrusted() bool { return true }

// argString returns the string field key of args, and whether args parsed.
func argFields(args json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, false
	}
	return m, true
}

func argString(m map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(m[key], &s)
	return s
}

// oneLine shortens s to one line of at most n bytes for an approval prompt.
func oneLinePreview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return shorten(s, n)
}

// Action implements [Actor]: every command acts; polling a background
// job does not.
func (s *Shell) Action(args json.RawMessage) string {
	m, ok := argFields(args)
	if !ok {
		return "run a shell command (unparsable arguments)"
	}
	cmd := argString(m, "command")
	if cmd == "" && m["job_id"] != nil {
		return ""
	}
	return cmd
}

// Action implements [Actor]: a write below [ScratchDir] does not act.
func (t *writeFileTool) Action(args json.RawMessage) string {
	m, ok := argFields(args)
	if !ok {
		return "write a file (unparsable arguments)"
	}
	p := argString(m, "path")
	if t.c.inScratch(p) {
		return ""
	}
	return fmt.Sprintf("write_file %s (%d bytes)", p, len(argString(m, "content")))
}

// Action implements [Actor]: an edit below [ScratchDir] does not act.
func (t *editFileTool) Action(args json.RawMessage) string {
	m, ok := argFields(args)
	if !ok {
		return "edit a file (unparsable arguments)"
	}
	p := argString(m, "path")
	if t.c.inScratch(p) {
		return ""
	}
	return fmt.Sprintf("edit_file %s: replace %q with %q", p, oneLinePreview(argString(m, "old_text"), 80), oneLinePreview(argString(m, "new_text"), 160))
}

// Action implements [Actor].
func (*messageTool) Action(args json.RawMessage) string {
	m, _ := argFields(args)
	return "send a message to this conversation: " + oneLinePreview(argString(m, "text"), 200)
}

// Action implements [Actor].
func (*sendFileTool) Action(args json.RawMessage) string {
	m, _ := argFields(args)
	return "send the file " + argString(m, "path") + " to this conversation"
}

// Action implements [Actor]: listing jobs does not act.
func (*cronTool) Action(args json.RawMessage) string {
	m, _ := argFields(args)
	switch a := argString(m, "action"); a {
	case "list":
		return ""
	case "remove":
		return "remove scheduled job " + argString(m, "id")
	default:
		when := argString(m, "in")
		if e := argString(m, "every"); e != "" {
			when = "every " + e
		}
		return fmt.Sprintf("schedule a job (%s) that will run: %s", when, oneLinePreview(argString(m, "message"), 200))
	}
}

// Action implements [Actor]: reading the config does not act.
func (*configTool) Action(args json.RawMessage) string {
	m, _ := argFields(args)
	if argString(m, "action") == "get" {
		return ""
	}
	return fmt.Sprintf("change the setting %s to %q", argString(m, "key"), argString(m, "value"))
}

// spawnAction describes a subagent call: the subagent runs tools of its own.
func spawnAction(args json.RawMessage) string {
	return "spawn subagents with tools for: " + oneLinePreview(string(args), 200)
}

// Action implements [Actor].
func (*subagentTool) Action(args json.RawMessage) string { return spawnAction(args) }

// Action implements [Actor].
func (*parallelTool) Action(args json.RawMessage) string { return spawnAction(args) }

// Action implements [Actor].
func (*chainTool) Action(args json.RawMessage) string { return spawnAction(args) }

// Action implements [Actor].
func (*delegateTool) Action(args json.RawMessage) string { return spawnAction(args) }

// inScratch reports whether the path argument p names something below
// the workspace's [ScratchDir], judged on the real path so a link cannot
// make a write elsewhere look like scratch.
func (c *contained) inScratch(p string) bool {
	if p == "" {
		return false
	}
	real, err := c.resolve(p)
	if err != nil {
		return false
	}
	return within(filepath.Join(c.root, ScratchDir), real) && real != filepath.Join(c.root, ScratchDir)
}
