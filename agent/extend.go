package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// Prefs are the choices one conversation made with /model, /personality
// and /agent. The zero value means "no override": the session follows the
// global runtime override, then the config default.
type Prefs struct {
	// Model is the model chosen with /model; empty means none.
	Model string `json:"model,omitempty"`
	// Personality is the personality chosen with /personality.
	Personality string `json:"personality,omitempty"`
	// Agent is the profile chosen with /agent.
	Agent string `json:"agent,omitempty"`
}

// SessionPrefs stores [Prefs] per session key so they survive a restart.
// Implementations must be safe for concurrent use. Set with the zero Prefs
// removes the entry. By default the agent keeps them in the memory
// module's session metadata sidecar; another store can be given in
// CommandOptions.Prefs.
type SessionPrefs interface {
	Get(sessionKey string) (Prefs, error)
	Set(sessionKey string, p Prefs) error
}

// sidecarPrefs keeps Prefs in the session's metadata sidecar, beside its
// transcript, so they survive a restart and are cleared with the session.
type sidecarPrefs struct{ store Sessions }

func (p sidecarPrefs) Get(key string) (Prefs, error) {
	m, err := p.store.LoadMeta(key)
	if err != nil {
		return Prefs{}, err
	}
	return Prefs{Model: m.ModelOverride, Personality: m.Personality, Agent: m.Agent}, nil
}

func (p sidecarPrefs) Set(key string, v Prefs) error {
	return p.store.UpdateMeta(key, func(m *memory.Meta) {
		m.ModelOverride, m.Personality, m.Agent = v.Model, v.Personality, v.Agent
	})
}

// Choice is one option a bare /model, /personality or /agent offers. A
// channel that has buttons renders Label and, on a press, runs Command as
// if the user had typed it; one without buttons shows the reply text, which
// lists the same options.
type Choice struct {
	// Label is what the button shows.
	Label string
	// Command is the full command a press runs, such as "/model gpt-4o".
	Command string
	// Current marks the option in effect for this session.
	Current bool
}

// Profile is a named agent setup, chosen for a conversation with /agent or
// used by the delegate tool for a subagent.
type Profile struct {
	// Description says what the profile is for, in one line.
	Description string
	// Model replaces the configured model; empty keeps it.
	Model string
	// Tools limits the tools offered to these names; empty means all. A
	// profile can only narrow the set, never add to it.
	Tools []string
	// Prompt is added to the system prompt.
	Prompt string
	// MaxIterations bounds a subagent run with this profile; zero means
	// the subagent default.
	MaxIterations int
}

// SkillSummaries supplies the skill index for the system prompt: one short
// line per trusted skill. The full text is loaded by a tool when a skill
// is used, so only summaries cost context on every turn.
type SkillSummaries interface {
	Summaries() []string
}

// extension holds the agent's optional parts; see Options.
type extension struct {
	repeatLimit    int
	prefs          SessionPrefs
	modelChoices   []string
	saveGlobal     func(context.Context, string) error
	personalities  map[string]string
	profiles       map[string]Profile
	providerStatus func() []string
	incidents      IncidentRecorder
	skills         SkillSummaries
	maxDepth       int
	subIterations  int
	onTurn         func(string, []string)

	mu          sync.Mutex
	globalModel string
}

func (e *extension) init(o *Options, sessions Sessions) {
	c, l, h := &o.Commands, &o.Limits, &o.Hooks
	e.repeatLimit = l.RepeatLimit
	if e.repeatLimit == 0 {
		e.repeatLimit = DefaultRepeatLimit
	}
	e.prefs = c.Prefs
	if e.prefs == nil {
		e.prefs = sidecarPrefs{store: sessions}
	}
	e.modelChoices = c.ModelChoices
	e.saveGlobal = c.SaveGlobalModel
	e.personalities = make(map[string]string, len(builtinPersonalities)+len(c.Personalities))
	for _, p := range builtinPersonalities {
		e.personalities[p.name] = p.prompt
	}
	for k, v := range c.Personalities {
		e.personalities[k] = v
	}
	e.profiles = c.Profiles
	e.providerStatus = c.ProviderStatus
	e.incidents = h.Incidents
	e.skills = h.Skills
	e.maxDepth = l.MaxSubagentDepth
	if e.maxDepth == 0 {
		e.maxDepth = 1
	}
	e.subIterations = l.SubagentMaxIterations
	if e.subIterations <= 0 {
		e.subIterations = DefaultSubagentIterations
	}
	e.onTurn = h.OnTurn
}

// builtinPersonalities are always available; Options.Personalities may
// replace them. "default" adds nothing to the prompt.
// They are a slice, which the compiler lays out statically, rather than a
// map, which would cost the package init code.
var builtinPersonalities = []struct{ name, prompt string }{
	{"default", ""},
	{"concise", "Answer in as few words as the question allows. No preamble, no recap."},
	{"friendly", "Be warm and encouraging, and explain your reasoning in plain words."},
	{"mentor", "Teach as you help: say why, point out what to learn next, and ask before doing what the user could learn to do."},
}

// model returns the model a session uses: its own override, then its
// profile's model, then the global runtime override, then the configured
// default.
func (a *Agent) effectiveModel(p Prefs) string {
	if p.Model != "" {
		return p.Model
	}
	if prof, ok := a.ext.profiles[p.Agent]; ok && prof.Model != "" {
		return prof.Model
	}
	a.ext.mu.Lock()
	g := a.ext.globalModel
	a.ext.mu.Unlock()
	if g != "" {
		return g
	}
	return a.model
}

// prefsFor reads a session's prefs. An unreadable store must not lock the
// user out of their conversation, so it is logged and defaults apply.
func (a *Agent) prefsFor(key string) Prefs {
	p, err := a.ext.prefs.Get(key)
	if err != nil {
		a.log.Warn("session preferences unreadable; using defaults", "session", key, "err", err)
		return Prefs{}
	}
	return p
}

// setup is what a session's prefs change about a turn.
type setup struct {
	model   string
	prompt  string
	allowed map[string]bool
}

func (s *setup) apply(t *turn) {
	t.model = s.model
	t.allowed = s.allowed
	t.guard.limit = t.a.ext.repeatLimit
}

func (a *Agent) turnSetup(req *Request) (*setup, error) {
	p := a.prefsFor(req.SessionKey)
	s := &setup{model: a.effectiveModel(p)}
	var b strings.Builder
	if a.ext.skills != nil {
		if sums := a.ext.skills.Summaries(); len(sums) > 0 {
			b.WriteString("\n\n<skills>\nSkills you can load with the skill tool when a task matches:\n")
			for _, l := range sums {
				b.WriteString("- ")
				b.WriteString(l)
				b.WriteByte('\n')
			}
			b.WriteString("</skills>")
		}
	}
	if text := a.ext.personalities[p.Personality]; text != "" {
		fmt.Fprintf(&b, "\n\n<personality>\n%s\n</personality>", text)
	}
	if prof, ok := a.ext.profiles[p.Agent]; ok {
		if prof.Prompt != "" {
			fmt.Fprintf(&b, "\n\n<agent_profile name=%q>\n%s\n</agent_profile>", p.Agent, prof.Prompt)
		}
		s.allowed = toolSet(prof.Tools)
	}
	s.prompt = b.String()
	return s, nil
}

func toolSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// turnContext puts what the turn's tools need on ctx: the recipient for
// message and send_file, and the agent as the subagent spawner.
func (a *Agent) turnContext(ctx context.Context, req *Request) context.Context {
	if req.Channel != "" {
		ctx = tools.WithRecipient(ctx, tools.Recipient{Channel: req.Channel, ChatID: req.ChatID, SessionKey: req.SessionKey})
	}
	if a.ext.maxDepth > 0 && depthOf(ctx) < a.ext.maxDepth {
		ctx = tools.WithSpawner(ctx, a)
	}
	return ctx
}

// afterTurnHooks records incidents and reports the turn's tool pattern.
func (a *Agent) afterTurnHooks(ctx context.Context, req *Request, t *turn, reply *Reply, err error) {
	a.recordIncident(ctx, req, t, reply, err)
	if a.ext.onTurn != nil && err == nil && len(t.steps.order) > 0 {
		a.ext.onTurn(req.SessionKey, t.steps.sequence)
	}
}

// knownTool reports whether the turn may call name.
func (t *turn) knownTool(name string) bool {
	if t.a.tools == nil {
		return false
	}
	if _, ok := t.a.tools.Get(name); !ok {
		return false
	}
	return t.allowed == nil || t.allowed[name]
}

// filterDefs leaves out tools the profile does not allow and tools that
// report themselves unavailable for this turn's context.
func (t *turn) filterDefs(ctx context.Context, defs []tools.Definition) []tools.Definition {
	out := defs[:0:0]
	dropped := false
	for _, d := range defs {
		keep := t.allowed == nil || t.allowed[d.Function.Name]
		if keep {
			if tl, ok := t.a.tools.Get(d.Function.Name); ok {
				if c, ok := tl.(tools.Conditional); ok && !c.Available(ctx) {
					keep = false
				}
			}
		}
		if keep {
			out = append(out, d)
		} else {
			dropped = true
		}
	}
	if !dropped {
		return defs
	}
	return out
}

// sessionLen returns how many messages the stored session holds.
func (a *Agent) sessionLen(key string) (int, error) {
	sess, err := a.sessions.Load(key)
	if err != nil {
		return 0, err
	}
	return len(sess.Messages), nil
}

// clearSession starts the conversation afresh: its messages go to the
// history archive first (nothing is lost), then the session and its
// overrides are cleared. The caller holds the session's turn lock.
func (a *Agent) clearSession(key string) error {
	return a.sessions.Reset(key)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isTextCall reports whether resp is a tool call written as text, which
// the loop will run rather than show.
func (t *turn) isTextCall(resp *providers.Response) bool {
	return len(resp.Message.ToolCalls) == 0 && parseTextToolCalls(resp.Message.Content, t.knownTool) != nil
}

// Model returns the model the next turn of the session sessionKey uses:
// its /model choice, else its agent profile's model, else the one chosen
// with /model --global, else the configured model. The CLI shows it in
// its prompt. It is safe for concurrent use.
func (a *Agent) Model(sessionKey string) string {
	return a.effectiveModel(a.prefsFor(sessionKey))
}
