package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/joshbot/joshbot/agent/commands"
)

// command answers a slash command without asking the model. handled is
// false for text that is not shaped like a command, which then goes to the
// model as an ordinary message. Commands are not stored in the transcript:
// they steer the conversation rather than take part in it.
func (a *Agent) command(ctx context.Context, req *Request) (*Reply, error, bool) {
	name, args, ok := commands.Parse(req.Text)
	if !ok {
		return nil, nil, false
	}
	if _, known := commands.Lookup(name); !known {
		return &Reply{Text: commands.UnknownReply(name)}, nil, true
	}
	if name == commands.Compact {
		// Compaction takes the turn lock itself and reports its own
		// failure as a turn error.
		r, err := a.compactCommand(ctx, *req)
		return r, err, true
	}
	// The turn lock keeps a command from racing a turn of the same
	// conversation (a /new in the middle of an answer).
	unlock, err := a.sessions.Lock(ctx, req.SessionKey)
	if err != nil {
		return nil, errorf("agent: %w", err), true
	}
	defer unlock()
	var r *Reply
	switch name {
	case commands.New:
		r, err = a.cmdNew(req)
	case commands.Model:
		r, err = a.cmdModel(ctx, req, args)
	case commands.Personality:
		r, err = a.cmdPersonality(req, args)
	case commands.Agent:
		r, err = a.cmdAgent(req, args)
	case commands.Status:
		r = a.cmdStatus(req)
	case commands.Help:
		r = &Reply{Text: commands.HelpText()}
	default:
		// The table and this switch must list the same commands; a
		// command in the table with no case here is a build mistake.
		r = &Reply{Text: fmt.Sprintf("/%s is listed but not implemented in this build.", name)}
	}
	if err != nil {
		return &Reply{Text: "Error: " + oneLine(err.Error())}, nil, true
	}
	return r, nil, true
}

func (a *Agent) cmdNew(req *Request) (*Reply, error) {
	if err := a.clearSession(req.SessionKey); err != nil {
		return nil, errorf("/new: clear the conversation: %w", err)
	}
	if err := a.ext.prefs.Set(req.SessionKey, Prefs{}); err != nil {
		return nil, errorf("/new: the conversation was cleared, but its model and personality could not be reset: %w", err)
	}
	return &Reply{Text: "New conversation started. Model and personality are back to the defaults."}, nil
}

// validModelName rejects what cannot be a model id before it is stored
// and sent with every later request.
func validModelName(s string) error {
	if s == "" || len(s) > 200 {
		return errorf("model name %q: must be 1 to 200 characters", s)
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return errorf("model name %q: must not contain spaces or control characters", s)
		}
	}
	return nil
}

func (a *Agent) cmdModel(ctx context.Context, req *Request, args []string) (*Reply, error) {
	global := false
	var rest []string
	for _, x := range args {
		if x == "--global" {
			global = true
			continue
		}
		rest = append(rest, x)
	}
	p := a.prefsFor(req.SessionKey)
	current := a.effectiveModel(p)
	if len(rest) == 0 {
		if global {
			return nil, errorf("/model --global needs a model name: /model <name> --global")
		}
		opts := append([]string{a.model}, a.ext.modelChoices...)
		opts = append(opts, current)
		slices.Sort(opts)
		opts = slices.Compact(opts)
		r := &Reply{Text: fmt.Sprintf("Current model: %s. Switch with /model <name>; /model <name> --global changes it for every conversation.\nChoices: %s",
			current, strings.Join(opts, ", "))}
		for _, m := range opts {
			r.Choices = append(r.Choices, Choice{Label: m, Command: "/model " + m, Current: m == current})
		}
		return r, nil
	}
	if len(rest) > 1 {
		return nil, errorf("/model takes one model name, got %d words", len(rest))
	}
	m := rest[0]
	if err := validModelName(m); err != nil {
		return nil, err
	}
	if global {
		if a.ext.saveGlobal == nil {
			return nil, errorf("/model --global is not available here: change %s instead", a.names.Model)
		}
		if err := a.ext.saveGlobal(ctx, m); err != nil {
			return nil, errorf("/model --global: %w", err)
		}
		a.ext.mu.Lock()
		a.ext.globalModel = m
		a.ext.mu.Unlock()
		// The global choice must show in this conversation too, so its
		// own override is dropped.
		p.Model = ""
		if err := a.ext.prefs.Set(req.SessionKey, p); err != nil {
			return nil, errorf("/model: %w", err)
		}
		return &Reply{Text: fmt.Sprintf("Model set to %s for every conversation (saved as %s). The transcript is kept.", m, a.names.Model)}, nil
	}
	p.Model = m
	if err := a.ext.prefs.Set(req.SessionKey, p); err != nil {
		return nil, errorf("/model: %w", err)
	}
	return &Reply{Text: fmt.Sprintf("Model for this conversation: %s (was %s). The transcript is kept; /new returns to the default.", m, current)}, nil
}

func (a *Agent) cmdPersonality(req *Request, args []string) (*Reply, error) {
	p := a.prefsFor(req.SessionKey)
	current := p.Personality
	if current == "" {
		current = "default"
	}
	names := sortedNames(a.ext.personalities)
	if len(args) == 0 {
		r := &Reply{Text: fmt.Sprintf("Current personality: %s. Switch with /personality <name>.\nChoices: %s", current, strings.Join(names, ", "))}
		for _, n := range names {
			r.Choices = append(r.Choices, Choice{Label: n, Command: "/personality " + n, Current: n == current})
		}
		return r, nil
	}
	n := strings.ToLower(strings.Join(args, " "))
	if _, ok := a.ext.personalities[n]; !ok {
		return nil, errorf("no personality %q; choices: %s", n, strings.Join(names, ", "))
	}
	if n == "default" {
		n = ""
	}
	p.Personality = n
	if err := a.ext.prefs.Set(req.SessionKey, p); err != nil {
		return nil, errorf("/personality: %w", err)
	}
	if n == "" {
		n = "default"
	}
	return &Reply{Text: fmt.Sprintf("Personality for this conversation: %s. The transcript is kept.", n)}, nil
}

func (a *Agent) cmdAgent(req *Request, args []string) (*Reply, error) {
	p := a.prefsFor(req.SessionKey)
	current := p.Agent
	if current == "" {
		current = "default"
	}
	names := append([]string{"default"}, sortedNames(a.ext.profiles)...)
	if len(args) == 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "Current agent: %s. Switch with /agent <name>.", current)
		if len(a.ext.profiles) == 0 {
			b.WriteString(" No agent profiles are configured (" + a.names.Profiles + ").")
		}
		r := &Reply{}
		for _, n := range names {
			desc := "the configured model and every tool"
			if prof, ok := a.ext.profiles[n]; ok && prof.Description != "" {
				desc = prof.Description
			}
			fmt.Fprintf(&b, "\n  %s: %s", n, desc)
			r.Choices = append(r.Choices, Choice{Label: n, Command: "/agent " + n, Current: n == current})
		}
		r.Text = b.String()
		return r, nil
	}
	n := strings.Join(args, " ")
	if n != "default" {
		if _, ok := a.ext.profiles[n]; !ok {
			return nil, errorf("no agent profile %q; choices: %s", n, strings.Join(names, ", "))
		}
	} else {
		n = ""
	}
	p.Agent = n
	if err := a.ext.prefs.Set(req.SessionKey, p); err != nil {
		return nil, errorf("/agent: %w", err)
	}
	if n == "" {
		n = "default"
	}
	return &Reply{Text: fmt.Sprintf("Agent for this conversation: %s (model %s). The transcript is kept.", n, a.effectiveModel(p))}, nil
}

func (a *Agent) cmdStatus(req *Request) *Reply {
	p := a.prefsFor(req.SessionKey)
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %s", a.effectiveModel(p))
	if p.Model != "" {
		b.WriteString(" (this conversation)")
	}
	fmt.Fprintf(&b, "\nProvider: %s", a.providerName)
	personality := p.Personality
	if personality == "" {
		personality = "default"
	}
	fmt.Fprintf(&b, "\nPersonality: %s", personality)
	if p.Agent != "" {
		fmt.Fprintf(&b, "\nAgent: %s", p.Agent)
	}
	if n, err := a.sessionLen(req.SessionKey); err != nil {
		fmt.Fprintf(&b, "\nSession: unreadable (%s)", oneLine(err.Error()))
	} else {
		fmt.Fprintf(&b, "\nSession: %d messages", n)
	}
	nTools := 0
	if a.tools != nil {
		nTools = a.tools.Len()
	}
	fmt.Fprintf(&b, "\nTools: %d", nTools)
	if a.ext.providerStatus != nil {
		for _, l := range a.ext.providerStatus() {
			b.WriteString("\n")
			b.WriteString(l)
		}
	}
	if line := IncidentLine(a.ext.incidents, a.now().Add(-24*time.Hour)); line != "" {
		b.WriteString("\n")
		b.WriteString(line)
	}
	return &Reply{Text: b.String()}
}
