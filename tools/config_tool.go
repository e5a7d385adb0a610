package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/joshbot/joshbot/bus"
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

var configSchema lazySchema[configArgs]

func (t *configTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a configArgs
	if err := decodeArgs("config", raw, &a); err != nil {
		return "", err
	}
	switch a.Action {
	case "get":
		v, err := t.cfg.View(ctx)
		if err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", fmt.Errorf("config: %w", err)
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
			return "", fmt.Errorf("config: %w", err)
		}
		if t.out != nil {
			if r, ok := RecipientFromContext(ctx); ok {
				if err := t.out.PublishOutbound(ctx, bus.Outbound{Channel: r.Channel, ChatID: r.ChatID, Text: "Config changed: " + desc}); err != nil {
					desc += " (the change notice could not be delivered: " + err.Error() + ")"
				}
			}
		}
		return "Changed: " + desc + ". Tell the user what you changed and why.", nil
	case "":
		return "", missing("config", "action")
	default:
		return "", fmt.Errorf("config: action %q: use get or set", a.Action)
	}
}
