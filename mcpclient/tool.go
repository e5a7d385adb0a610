package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool of a trusted server, named mcp__<server>__<tool>. It has
// the methods of the tools module's Tool interface, so it registers beside
// the built-in tools. Its description and schema are the defanged, capped
// forms; its results are fenced as untrusted tool output. A Tool is safe
// for concurrent use.
type Tool struct {
	s      *server
	name   string
	remote string
	desc   string
	params json.RawMessage
}

// ReturnsUntrusted reports true: everything a server answers is outside
// text. It is the tools module's Untrusted ability, so a turn that calls
// the tool is tainted.
func (t *Tool) ReturnsUntrusted() bool { return true }

// Action describes a call for a human asked to approve it. It is the
// tools module's Actor ability: a turn that has read untrusted text calls
// a tool that may act only with a human's approval. Every call counts as
// acting, since what a server's tool does is not known here (a hint in
// its annotations would be the server's own claim, and is not part of
// the manifest the operator trusted).
func (t *Tool) Action(args json.RawMessage) string {
	a, _ := capChars(string(bytes.Join(bytes.Fields(args), []byte(" "))), 300)
	return fmt.Sprintf("call %s on MCP server %q with %s", t.remote, t.s.cfg.Name, a)
}

// Name returns mcp__<server>__<tool>.
func (t *Tool) Name() string { return t.name }

// Description returns the server's description, defanged, capped at
// [MaxDescription] characters and labelled with the server's name.
func (t *Tool) Description() string { return t.desc }

// Parameters returns the tool's argument schema with envelope tags defanged
// in every string of it.
func (t *Tool) Parameters() json.RawMessage { return t.params }

// Server returns the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.s.cfg.Name }

// Execute calls the tool on its server, bounded by the server's call
// timeout. The result comes back fenced as untrusted tool output and capped
// at [MaxResult] characters; a result the server marks as an error comes
// back the same way, as the error. A server that is not running (revoked,
// restarting, failed, stopped) yields an error saying which and why; a
// revoked or failed one says the tool is no longer available.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.s.ready(ctx)
	if errors.Is(err, errGone) {
		return "", errorf("tool %s %w", t.name, err)
	}
	if err != nil {
		return "", err
	}
	limit := t.s.cfg.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := a.sess.CallTool(cctx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			t.s.suspect(a, fmt.Sprintf("a call of %s got no answer within %s", t.remote, limit))
			return "", errorf("%s: no answer within %s; if this server is just slow, raise %s", t.name, limit, t.s.callTimeoutSetting())
		}
		select {
		case <-a.ended:
			return "", errorf("%s: mcp server %q stopped during the call (%s); it will be restarted once, so the call may be retried", t.name, t.s.cfg.Name, a.why())
		case <-time.After(time.Second):
		}
		msg, _ := capChars(Defang(err.Error()), MaxDescription)
		return "", errorf("%s: %s", t.name, msg)
	}
	text := renderContent(res)
	if res.IsError {
		return "", errors.New(fenceResult(t.s.cfg.Name, t.remote, text, true))
	}
	return fenceResult(t.s.cfg.Name, t.remote, text, false), nil
}

// renderContent turns a call result into text. Media are described, never
// inlined: base64 would spend the context window on bytes the model cannot
// read as text.
func renderContent(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %q]", c.URI, c.Name))
		case *mcp.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "" || len(r.Blob) == 0:
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			parts = append(parts, "[content of a kind joshbot does not read]")
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// modelSchema is a tool's input schema as the model reads it: an object
// schema, at most maxSchema bytes, with envelope tags defanged in every
// string (property descriptions reach the prompt as surely as the tool's
// own description does).
func modelSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) > maxSchema {
		return nil, errorf("its input schema is %d bytes, over the %d KiB limit", len(raw), maxSchema>>10)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, errorf("its input schema is not JSON: %v", err)
	}
	switch obj := v.(type) {
	case nil:
		v = map[string]any{"type": "object", "properties": map[string]any{}}
	case map[string]any:
		if _, ok := obj["type"]; !ok {
			obj["type"] = "object"
		}
	default:
		return nil, errors.New("its input schema is not a JSON object")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // keep "&lt;" readable; JSON needs no HTML escaping
	if err := enc.Encode(defangValue(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(out.Bytes()), nil
}

func defangValue(v any) any {
	switch x := v.(type) {
	case string:
		return Defang(x)
	case []any:
		for i := range x {
			x[i] = defangValue(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = defangValue(e)
		}
	}
	return v
}
