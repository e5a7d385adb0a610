package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/sandbox"
)

// ConfigAccess is what the config tool needs from the binary's config.
// View must carry no credential: the binary builds it from a type that has
// no credential field. Set must refuse every key outside its allowlist,
// write the change atomically, and return a one-line description of it.
type ConfigAccess interface {
	View(ctx context.Context) (any, error)
	Set(ctx context.Context, key, value string) (string, error)
}

// RegisterConfig registers the config tool on reg. When out is non-nil,
// every change is also reported to the conversation as its own message, so
// the user learns of it even if the model does not mention it.
func RegisterConfig(reg *Registry, cfg ConfigAccess, out Outbox) error {
	if reg == nil || cfg == nil {
		return errors.New("tools: register config: nil registry or config")
	}
	return reg.Register(&configTool{cfg: cfg, out: out})
}

type configTool struct {
	cfg ConfigAccess
	out Outbox
}

func (*configTool) Name() string { return "config" }
func (*configTool) Description() string {
	return "Read the running configuration (action=get; credentials are never included) or change one of a few safe settings " +
		"(action=set with key and value, the key spelled as action=get shows it). Changes are saved and take effect at the next start; the user is told of each change."
}
func (*configTool) Parameters() json.RawMessage {
	return configSchema.get()
}

type configArgs struct {
	Action string `json:"action" schema:"enum=get|set"`
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
}

var configSchema = lazySchema{of: (*configArgs)(nil)}

func (t *configTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a configArgs
	if err := decodeArgs("config", raw, &a); err != nil {
		return "", err
	}
	switch a.Action {
	case "get":
		v, err := t.cfg.View(ctx)
		if err != nil {
			return "", errorf("config: %w", err)
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", errorf("config: %w", err)
		}
		return string(b), nil
	case "set":
		if a.Key == "" {
			return "", missing("config", "key")
		}
		if a.Value == "" {
			return "", missing("config", "value")
		}
		desc, err := t.cfg.Set(ctx, a.Key, a.Value)
		if err != nil {
			return "", errorf("config: %w", err)
		}
		return "Changed: " + notify(ctx, t.out, desc) + ". Tell the user what you changed and why.", nil
	case "":
		return "", missing("config", "action")
	default:
		return "", errorf("config: action %q: use get or set", a.Action)
	}
}

// RegisterSubagentProfiles registers the subagent_profiles tool on reg: it
// lists, shows, creates, edits and deletes the named subagent profiles
// (what the delegate tool offers), through cfg. key is where the profiles
// live in cfg's document, as dot-separated object names (joshbot passes
// its config's key). The tool reads them from that object of cfg.View and
// writes one with cfg.Set(key+"."+name, <the profile as JSON, or null>), so
// cfg's allowlist decides what may be written and cfg's validation what
// is valid. Every write is first put to the human approver on the
// context and refused when nobody approves it. When out is non-nil, each
// change is also reported to the conversation.
func RegisterSubagentProfiles(reg *Registry, cfg ConfigAccess, out Outbox, key string) error {
	if reg == nil || cfg == nil {
		return errors.New("tools: register subagent profiles: nil registry or config")
	}
	if key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
		return errorf("tools: register subagent profiles: key %q is not a dot-separated path", key)
	}
	return reg.Register(&profilesTool{cfg: cfg, out: out, key: key})
}

type profilesTool struct {
	cfg ConfigAccess
	out Outbox
	key string // where the profiles live in cfg's document
}

// reProfileName is the form of a profile name.
var reProfileName = &lazyRegexp{expr: `^[A-Za-z0-9_-]{1,40}$`}

func (*profilesTool) Name() string { return "subagent_profiles" }
func (*profilesTool) Description() string {
	return "Manage the named subagent profiles the delegate tool offers: operation=list, show (name), create (name, description and any of model, tools, prompt, max_iterations), " +
		"edit (name and the fields to change) or delete (name). A user must approve every change; changes take effect at the next start."
}
func (*profilesTool) Parameters() json.RawMessage { return profilesSchema.get() }

type profileArgs struct {
	Operation     string    `json:"operation" schema:"enum=list|show|create|edit|delete"`
	Name          *string   `json:"name,omitempty" jsonschema:"The profile's name: letters, digits, - and _."`
	Description   *string   `json:"description,omitempty" jsonschema:"One line saying what the profile is for; shown when choosing whom to delegate to."`
	Model         *string   `json:"model,omitempty" jsonschema:"Model id for the profile; empty keeps the default model."`
	Tools         *[]string `json:"tools,omitempty" jsonschema:"Tool names the profile may use; empty means every tool."`
	Prompt        *string   `json:"prompt,omitempty" jsonschema:"Text added to the subagent's system prompt."`
	MaxIterations *int      `json:"max_iterations,omitempty" jsonschema:"Model calls per delegated run; 0 means the default." schema:"minimum=0,maximum=200"`
}

var profilesSchema = lazySchema{of: (*profileArgs)(nil)}

// subagentProfile is one profile as the config view and the writes spell it.
type subagentProfile struct {
	Description   string   `json:"description,omitempty"`
	Model         string   `json:"model,omitempty"`
	Tools         []string `json:"tools,omitempty"`
	Prompt        string   `json:"prompt,omitempty"`
	MaxIterations int      `json:"max_iterations,omitempty"`
}

// Action implements [Actor]: list and show do not act.
func (*profilesTool) Action(args json.RawMessage) string {
	m, _ := argFields(args)
	switch op := argString(m, "operation"); op {
	case "create", "edit", "delete":
		return op + " subagent profile " + argString(m, "name")
	}
	return ""
}

func (t *profilesTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const tool = "subagent_profiles"
	var a profileArgs
	if err := decodeArgs(tool, raw, &a); err != nil {
		return "", err
	}
	profiles, err := t.profiles(ctx)
	if err != nil {
		return "", errorf("%s: %w", tool, err)
	}
	names := slices.Sorted(maps.Keys(profiles))
	if a.Operation == "list" {
		if len(names) == 0 {
			return "No subagent profiles are configured.", nil
		}
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "- %s: %s\n", n, profiles[n].Description)
		}
		return b.String(), nil
	}
	if a.Name == nil || strings.TrimSpace(*a.Name) == "" {
		return "", missing(tool, "name")
	}
	name := strings.TrimSpace(*a.Name)
	if !reProfileName.get().MatchString(name) {
		return "", &ArgumentError{Tool: tool, Argument: "name", Problem: "must be 1 to 40 letters, digits, - or _, got " + shorten(strconv.Quote(name), 60)}
	}
	p, exists := profiles[name]
	known := "none"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	switch {
	case a.Operation == "create" && exists:
		return "", errorf("%s: profile %q already exists: use operation=edit to change it", tool, name)
	case a.Operation != "create" && !exists:
		return "", errorf("%s: no profile %q; the profiles are: %s", tool, name, known)
	}
	var value string
	switch a.Operation {
	case "show":
		b, _ := json.MarshalIndent(p, "", "  ")
		return name + ":\n" + string(b), nil
	case "create", "edit":
		if a.Operation == "create" && (a.Description == nil || strings.TrimSpace(*a.Description) == "") {
			return "", missing(tool, "description")
		}
		if a.Description == nil && a.Model == nil && a.Tools == nil && a.Prompt == nil && a.MaxIterations == nil {
			return "", errorf("%s: edit of %q changes nothing: give description, model, tools, prompt or max_iterations", tool, name)
		}
		set := func(dst *string, src *string) {
			if src != nil {
				*dst = strings.TrimSpace(*src)
			}
		}
		set(&p.Description, a.Description)
		set(&p.Model, a.Model)
		set(&p.Prompt, a.Prompt)
		if a.Tools != nil {
			p.Tools = *a.Tools
		}
		if a.MaxIterations != nil {
			p.MaxIterations = *a.MaxIterations
		}
		b, _ := json.Marshal(p)
		value = string(b)
	case "delete":
		value = "null"
	}
	if !gateApproved(ctx) {
		req := &sandbox.ApprovalRequest{
			Tool:    tool,
			Command: fmt.Sprintf("%s subagent profile %s: %s", a.Operation, name, shorten(value, 300)),
			Reason:  "a subagent profile decides the model, tools and instructions of delegated runs, so changing one needs a human's approval",
		}
		d, err := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), req)
		if d == sandbox.Deny {
			why := "the human denied it"
			if err != nil {
				why = "no human could approve it here (" + err.Error() + ")"
			}
			return "", errorf("%s: profile %q not changed: %s. Tell the user what you would change, so they can do it themselves", tool, name, why)
		}
	}
	desc, err := t.cfg.Set(ctx, t.key+"."+name, value)
	if err != nil {
		return "", errorf("%s: %w", tool, err)
	}
	return "Changed: " + notify(ctx, t.out, desc) + ". Tell the user what you changed and why.", nil
}

// profiles reads the profiles from the config view.
func (t *profilesTool) profiles(ctx context.Context) (map[string]subagentProfile, error) {
	v, err := t.cfg.View(ctx)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, errorf("the configuration is not readable: %w", err)
	}
	for _, part := range strings.Split(t.key, ".") {
		obj, ok := doc.(map[string]any)
		if !ok {
			return nil, errorf("the configuration's %s is not an object", t.key)
		}
		if doc = obj[part]; doc == nil {
			return map[string]subagentProfile{}, nil
		}
	}
	if b, err = json.Marshal(doc); err != nil {
		return nil, err
	}
	var profiles map[string]subagentProfile
	if err := json.Unmarshal(b, &profiles); err != nil {
		return nil, errorf("the configuration's %s is not readable: %w", t.key, err)
	}
	if profiles == nil {
		profiles = map[string]subagentProfile{}
	}
	return profiles, nil
}

// notify reports a config change to the turn's conversation through out,
// and returns desc, noting a notice that could not be delivered.
func notify(ctx context.Context, out Outbox, desc string) string {
	if out == nil {
		return desc
	}
	if r, ok := RecipientFromContext(ctx); ok {
		if err := out.PublishOutbound(ctx, bus.Outbound{Channel: r.Channel, ChatID: r.ChatID, Text: "Config changed: " + desc}); err != nil {
			desc += " (the change notice could not be delivered: " + err.Error() + ")"
		}
	}
	return desc
}
