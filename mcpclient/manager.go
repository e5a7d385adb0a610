package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"

	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/joshbot/joshbot/sandbox"
)

// maxTools bounds how many tools one server may advertise, so a server that
// pages forever through tools/list cannot hold the handshake hostage.
const maxTools = 512

// State is where a server stands, as `joshbot mcp list` shows it.
type State string

const (
	// StateTrusted: running, approved for exactly the manifest it
	// advertises; its tools reach the model.
	StateTrusted State = "trusted"
	// StateUntrusted: it answered, but no operator approved it. Its process
	// is stopped once its manifest is read.
	StateUntrusted State = "untrusted"
	// StateRevoked: it advertises something other than what was approved,
	// at start or mid-session. It is stopped and must be approved again.
	StateRevoked State = "revoked"
	// StateStarting: [Manager.Launch] is connecting it in the background.
	// Tools offered from its cached manifest wait for it.
	StateStarting State = "starting"
	// StateSuspect: running and trusted, but a call to it got no answer
	// within its call timeout. The next call first checks it with a ping
	// bounded by [Options.HealthTimeout]: a server that answers is kept,
	// one that does not is restarted.
	StateSuspect State = "suspect"
	// StateRestarting: it stopped mid-session, or failed its health check,
	// and is being started again; calls wait for it or report an error.
	StateRestarting State = "restarting"
	// StateFailed: it could not be started, did not complete its handshake
	// and tools/list in time, stopped again after its one restart, or used
	// up its restart budget ([Status.RetryAt] then says when a call may
	// restart it again).
	StateFailed State = "failed"
	// StateStopped: the manager was closed.
	StateStopped State = "stopped"
)

// Options configures a [Manager]. A nil *Options means the defaults.
type Options struct {
	// Trust decides which manifests may reach the model. Nil trusts
	// nothing: servers are started and listed, and no tool is offered.
	Trust *TrustStore
	// Logger receives one line per server that fails, is refused or
	// restarts. Nil discards.
	Logger *slog.Logger
	// Environ is the environment servers' environments are screened from,
	// in os.Environ form; nil means os.Environ().
	Environ []string
	// HandshakeTimeout bounds start, handshake and tools/list of one
	// server; zero means [DefaultHandshakeTimeout].
	HandshakeTimeout time.Duration
	// RestartDelay is the wait before restarting a server that stopped;
	// zero means [DefaultRestartDelay].
	RestartDelay time.Duration
	// HealthTimeout bounds the ping that checks a server whose last call
	// timed out; zero means [DefaultHealthTimeout].
	HealthTimeout time.Duration
	// RestartBudget is how many times a server may be restarted within
	// RestartWindow; past it the server is failed until the oldest restart
	// leaves the window. Zero means [DefaultRestartBudget].
	RestartBudget int
	// RestartWindow is the span RestartBudget counts over; zero means
	// [DefaultRestartWindow].
	RestartWindow time.Duration
	// Now is the clock of the restart budget; nil means time.Now.
	Now func() time.Time
	// ManifestCache is the file where the manifest of each server is kept
	// the last time it answered, so [Manager.Launch] can offer its tools
	// before it is up. A cached manifest is used only while the trust
	// store approves its hash, so an edited cache offers nothing. Empty
	// means no cache: Launch offers a server's tools only once it is up.
	ManifestCache string
	// OnReady, when set, receives the tools of a server [Manager.Launch]
	// brought up whose tools were not already offered from the manifest
	// cache (none was cached, or it changed and the new one is approved). A
	// program registers them here. It runs on a goroutine of the manager
	// with no lock held. Nil means the tools are only in [Manager.Tools].
	OnReady func(server string, tools []*Tool)
	// OnWithdraw, when set, is called once for each server whose tools
	// were offered and have stopped working for the rest of the manager's
	// life: it was revoked (its tool list changed mid-session or across
	// its restart) or it failed for good (it stopped again after its one
	// restart, its restart failed, or its tools could not be re-read).
	// It is not called for a restart in progress, for servers that were
	// never trusted, or by [Manager.Close]. A program that registered the
	// tools unregisters them here, so the model is no longer offered tools
	// that can only fail. It runs on a goroutine of the manager with no
	// lock held, possibly concurrently for different servers; it should
	// return promptly. Nil means no notice.
	OnWithdraw func(Withdrawal)
	// CallTimeoutSetting names, in the error of a call that ran out of
	// time, the setting that raises the server's [Server.CallTimeout]; a
	// program that reads its servers from a config file returns the key.
	// Nil means "Server.CallTimeout".
	CallTimeoutSetting func(server string) string
}

// Withdrawal is the notice [Options.OnWithdraw] receives.
type Withdrawal struct {
	// Server is the server's name.
	Server string
	// State is [StateRevoked] or [StateFailed].
	State State
	// Reason is the reason [Manager.Status] shows, naming what to do.
	Reason string
	// Tools are the names of the tools that were offered,
	// mcp__<server>__<tool>, sorted.
	Tools []string
}

// Manager owns a set of MCP server connections and the processes behind
// them: it starts them, checks each manifest against the trust store, hands
// out the tools of trusted servers, restarts a server that dies (once), and
// stops and reaps everything on [Manager.Close]. The zero value is not
// usable; call [NewManager]. A Manager is safe for concurrent use.
type Manager struct {
	trust      *TrustStore
	log        *slog.Logger
	environ    []string
	handshake  time.Duration
	delay      time.Duration
	health     time.Duration
	budget     int
	window     time.Duration
	now        func() time.Time
	onWithdraw func(Withdrawal)
	onReady    func(string, []*Tool)
	cache      *manifestCache
	timeoutKey func(server string) string
	// after is the clock restarts wait on; tests replace it.
	after func(time.Duration) <-chan time.Time

	ctx    context.Context // cancelled by Close: stops restarts and rechecks
	cancel context.CancelFunc
	bg     sync.WaitGroup

	mu      sync.Mutex
	servers []*server
	closed  bool
}

// NewManager returns a Manager with no servers.
func NewManager(opts *Options) *Manager {
	var o Options
	if opts != nil {
		o = *opts
	}
	m := &Manager{
		trust: o.Trust, log: o.Logger, environ: o.Environ, handshake: o.HandshakeTimeout, delay: o.RestartDelay,
		health: o.HealthTimeout, budget: o.RestartBudget, window: o.RestartWindow, now: o.Now,
		onWithdraw: o.OnWithdraw, onReady: o.OnReady, timeoutKey: o.CallTimeoutSetting, after: time.After,
	}
	if o.ManifestCache != "" {
		m.cache = &manifestCache{path: o.ManifestCache}
	}
	if m.health <= 0 {
		m.health = DefaultHealthTimeout
	}
	if m.budget <= 0 {
		m.budget = DefaultRestartBudget
	}
	if m.window <= 0 {
		m.window = DefaultRestartWindow
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if m.environ == nil {
		m.environ = os.Environ()
	}
	if m.handshake <= 0 {
		m.handshake = DefaultHandshakeTimeout
	}
	if m.delay <= 0 {
		m.delay = DefaultRestartDelay
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Start connects every server in decls concurrently and returns when each
// has been connected, refused or given up on (at most the handshake bound
// later). A server that fails is logged and recorded in [Manager.Status]
// without affecting the others; Start returns an error only for
// declarations that are invalid or repeat a name, before starting any.
func (m *Manager) Start(ctx context.Context, decls []Server) error {
	fresh, err := m.add(decls, nil)
	if err != nil {
		return err
	}
	// Close cancels connections still being set up.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()
	var wg sync.WaitGroup
	for _, s := range fresh {
		wg.Add(1)
		go func() {
			defer m.bg.Done()
			defer wg.Done()
			s.start(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// Launch is Start without the wait: it returns at once and connects every
// server in the background, so a program's first model request need not
// wait for any handshake. A server whose manifest is in
// [Options.ManifestCache], with a hash the trust store approves, has its
// tools offered by [Manager.Tools] at once; a call to one waits for the
// server to come up (at most the handshake bound) and fails if it does not,
// and a server that fails to come up, or comes up advertising something
// unapproved, is withdrawn ([Options.OnWithdraw]). The tools of a server
// with nothing usable cached go to [Options.OnReady] once it is up.
// Launch returns an error only for declarations that are invalid or repeat
// a name, before starting any.
func (m *Manager) Launch(decls []Server) error {
	cached := map[string]Manifest{}
	if m.cache != nil {
		cached = m.cache.load(m.log)
	}
	fresh, err := m.add(decls, cached)
	if err != nil {
		return err
	}
	for _, s := range fresh {
		go func() {
			defer m.bg.Done()
			s.start(m.ctx)
			s.mu.Lock()
			close(s.up)
			s.up = nil
			s.mu.Unlock()
		}()
	}
	return nil
}

// add validates decls and records a server for each, to be started by the
// caller, which must call m.bg.Done once per server when its start is
// over. With cached non-nil (Launch), each server starts in StateStarting,
// offering the tools of its cached manifest when the trust store approves
// it.
func (m *Manager) add(decls []Server, cached map[string]Manifest) ([]*server, error) {
	seen := map[string]bool{}
	for _, d := range decls {
		if err := d.Validate(); err != nil {
			return nil, err
		}
		if seen[d.Name] {
			return nil, errorf("mcp server %q is declared twice", d.Name)
		}
		seen[d.Name] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("mcpclient: manager is closed")
	}
	for _, s := range m.servers {
		if seen[s.cfg.Name] {
			return nil, errorf("mcp server %q is already started", s.cfg.Name)
		}
	}
	fresh := make([]*server, len(decls))
	for i, d := range decls {
		s := &server{m: m, cfg: d, state: StateFailed, reason: "starting"}
		if cached != nil {
			s.state, s.reason, s.up, s.launched = StateStarting, "starting in the background", make(chan struct{}), true
			s.useCached(cached[d.Name])
		}
		fresh[i] = s
	}
	m.servers = append(m.servers, fresh...)
	// Close waits for these too, so no process it did not see can outlive it.
	m.bg.Add(len(fresh))
	return fresh, nil
}

// offering reports whether the server's tools are handed out: it is
// trusted, or it was and is only being checked, restarted or waited for.
// s.mu is held.
func (s *server) offering() bool {
	switch s.state {
	case StateTrusted, StateSuspect:
		return true
	case StateRestarting, StateStarting, StateFailed:
		return s.offered != nil && !s.withdrawn
	}
	return false
}

// Tools returns the tools of every trusted server, sorted by name, named
// mcp__<server>__<tool>, ready to register beside the built-in tools. Each
// has the methods of the tools module's Tool interface. A server being
// checked, restarted or (after [Manager.Launch], from its cached manifest)
// started keeps its tools here: a call waits for it or says why not.
func (m *Manager) Tools() []*Tool {
	m.mu.Lock()
	servers := slices.Clone(m.servers)
	m.mu.Unlock()
	var out []*Tool
	for _, s := range servers {
		s.mu.Lock()
		if s.offering() {
			out = append(out, s.tools...)
		}
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Status reports every server, in the order they were started.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	servers := slices.Clone(m.servers)
	m.mu.Unlock()
	out := make([]Status, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.status())
	}
	return out
}

// Close stops every server, waits for each process to be reaped, and stops
// restarts in progress. Tools of a closed manager report an error. Close is
// idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := slices.Clone(m.servers)
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown()
		}()
	}
	wg.Wait()
	m.bg.Wait()
	return nil
}

// Status is one server as `joshbot mcp list` shows it.
type Status struct {
	// Name is the server's name.
	Name string `json:"name"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	// State is where the server stands.
	State State `json:"state"`
	// Reason explains any state but trusted, naming what to do.
	Reason string `json:"reason,omitempty"`
	// SHA256 is the hash of the manifest the server advertised; empty when
	// it never answered.
	SHA256 string `json:"sha256,omitempty"`
	// ApprovedSHA256 is the hash the trust store approved, when it differs.
	ApprovedSHA256 string `json:"approved_sha256,omitempty"`
	// Tools are the advertised tools, as the model would see them.
	Tools []ToolStatus `json:"tools"`
	// Restarts is how many restarts of the server fall within the restart
	// window ([Options.RestartWindow]), out of [Options.RestartBudget].
	Restarts int `json:"restarts"`
	// RestartBudget is the number of restarts allowed within the window.
	RestartBudget int `json:"restart_budget"`
	// LastError is the most recent failure seen (a call that timed out, a
	// failed health check or restart); empty when there was none.
	LastError string `json:"last_error,omitempty"`
	// RetryAt, for a server failed because it used up its restart budget,
	// is when a call may restart it again; zero otherwise.
	RetryAt time.Time `json:"retry_at,omitzero"`
}

// ToolStatus is one advertised tool as the model would see it.
type ToolStatus struct {
	// Name is the name the model calls it by, mcp__<server>__<tool>.
	Name string `json:"name"`
	// ServerName is its name on the server.
	ServerName string `json:"server_name"`
	// Description is the description the model reads: defanged and capped.
	Description string `json:"description"`
	// InputSchema is the argument schema the model reads.
	InputSchema json.RawMessage `json:"input_schema"`
	// Skipped says why the tool is not offered even when the server is
	// trusted; empty when it is.
	Skipped string `json:"skipped,omitempty"`
}

// server is one declared server and its current connection.
type server struct {
	m   *Manager
	cfg Server

	mu       sync.Mutex
	state    State
	reason   string
	manifest Manifest
	hash     string
	approved string
	views    []ToolStatus
	tools    []*Tool
	cur      *attempt      // the live connection, when trusted
	checking chan struct{} // non-nil while a tools/list_changed is verified
	again    bool          // another tools/list_changed came during a check
	gen      int
	// early is the gen of a connection that announced a tools change
	// before it was adopted; adopting it re-checks at once.
	early    int
	restarts int
	closing  bool
	// offered names the tools handed out while trusted, for the
	// withdrawal notice; withdrawn is set once that notice is due.
	offered   []string
	withdrawn bool
	// healing is non-nil while a suspect server is checked and, if need
	// be, restarted; calls wait for it.
	healing chan struct{}
	// restartLog holds the times of the restarts still inside the
	// manager's restart window, oldest first.
	restartLog []time.Time
	// lastErr is the most recent failure, for Status.
	lastErr string
	// launched is set for a server started by Launch; up is closed (and
	// set to nil) once its first connection is settled; cached is the hash
	// of the cached manifest its tools were first offered from.
	launched bool
	up       chan struct{}
	cached   string
	// retryAt is when a server that used up its restart budget may be
	// restarted again; zero otherwise.
	retryAt time.Time
}

// attempt is one connection to a server: a process or an HTTP session.
type attempt struct {
	gen   int
	mu    sync.Mutex // guards sess while dial sets it and onOver may read it
	sess  *mcp.ClientSession
	proc  *procTransport
	http  *http.Client
	over  atomic.Bool
	ended chan struct{} // closed when the session has ended
}

// why says how an ended connection ended.
func (a *attempt) why() string {
	if a.over.Load() {
		return ErrMessageTooLarge.Error() + ", so its connection was killed"
	}
	if a.proc != nil {
		if p := a.proc.process(); p != nil {
			p.wait(time.Second)
			return "its process " + p.exitReason()
		}
	}
	return "its connection closed"
}

func (a *attempt) close() {
	a.mu.Lock()
	sess := a.sess
	a.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	if a.proc != nil {
		if p := a.proc.process(); p != nil {
			p.stop()
		}
	}
	closeIdle(a.http)
}

// kill ends a at once: a connection that stopped answering gets no
// graceful stop, and its whole process group goes with it.
func (a *attempt) kill() {
	if a.proc != nil {
		if p := a.proc.process(); p != nil {
			killGroup(p.cmd.Process)
		}
	}
	a.close()
}

func (s *server) logger() *slog.Logger { return s.m.log.With("mcp_server", s.cfg.Name) }

// callTimeoutSetting names the setting that raises the server's call
// timeout (see [Options.CallTimeoutSetting]).
func (s *server) callTimeoutSetting() string {
	if s.m.timeoutKey == nil {
		return "Server.CallTimeout"
	}
	return s.m.timeoutKey(s.cfg.Name)
}

// start makes the first connection and settles the server's state.
func (s *server) start(ctx context.Context) {
	a, man, err := s.dial(ctx)
	if err != nil {
		s.setFailed(err.Error())
		s.logger().Warn("mcp server skipped", "err", err)
		return
	}
	hash := man.Hash()
	if s.m.cache != nil {
		// Whatever the verdict: the cache is only ever used for a hash the
		// trust store approves, and caching an unapproved manifest lets
		// the first launch after `mcp trust` offer its tools at once.
		if err := s.m.cache.save(s.cfg.Name, man); err != nil {
			s.logger().Warn("mcp manifest not cached", "err", err)
		}
	}
	s.mu.Lock()
	s.manifest, s.hash = man, hash
	s.views, s.tools = s.buildTools(man)
	s.mu.Unlock()

	verdict, appr, terr := Untrusted, Approval{}, error(nil)
	if s.m.trust != nil {
		verdict, appr, terr = s.m.trust.Check(s.cfg.Name, hash)
	}
	switch {
	case terr != nil:
		s.refuse(a, StateUntrusted, fmt.Sprintf("not trusted, because the trust store is unusable: %v", terr), "")
		s.logger().Error("mcp server not trusted", "err", terr)
	case verdict == Untrusted:
		s.refuse(a, StateUntrusted, fmt.Sprintf("not approved: read `joshbot mcp list`, then run `joshbot mcp trust %s`", s.cfg.Name), "")
		s.logger().Warn("mcp server is not approved; its tools are not offered", "hint", "joshbot mcp trust "+s.cfg.Name)
	case verdict == Revoked:
		if appr.RevokedAt.IsZero() {
			if err := s.m.trust.Revoke(s.cfg.Name, hash); err != nil {
				s.logger().Error("recording revocation", "err", err)
			}
		}
		reason := fmt.Sprintf("its manifest (sha256 %s) is not the one approved (sha256 %s): read `joshbot mcp list`, then run `joshbot mcp trust %s`", short(hash), short(appr.SHA256), s.cfg.Name)
		if appr.SHA256 == hash {
			reason = fmt.Sprintf("approval was revoked after its manifest changed: read `joshbot mcp list`, then run `joshbot mcp trust %s`", s.cfg.Name)
		}
		s.refuse(a, StateRevoked, reason, appr.SHA256)
		s.logger().Warn("mcp server approval revoked", "reason", reason)
	default:
		if !s.adopt(a, StateTrusted, "") {
			a.close()
			return
		}
		if s.launched && s.cached != hash && s.m.onReady != nil {
			s.mu.Lock()
			tools := slices.Clone(s.tools)
			s.mu.Unlock()
			s.m.onReady(s.cfg.Name, tools)
		}
	}
}

// adopt makes a the live connection and watches for its end. It reports
// false when the server is shutting down and a must be dropped.
func (s *server) adopt(a *attempt, st State, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || a.gen != s.gen {
		return false
	}
	s.cur, s.state, s.reason = a, st, reason
	if st == StateTrusted && s.offered == nil {
		s.offered = make([]string, 0, len(s.tools))
		for _, t := range s.tools {
			s.offered = append(s.offered, t.name)
		}
		sort.Strings(s.offered)
	}
	if s.early == a.gen {
		s.startCheck(a)
	}
	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		a.sess.Wait()
		close(a.ended)
		s.ended(a)
	}()
	return true
}

// refuse records a state in which the server's tools are not offered and
// stops its connection.
func (s *server) refuse(a *attempt, st State, reason, approved string) {
	s.mu.Lock()
	s.state, s.reason, s.approved = st, reason, approved
	w := s.withdrawLocked()
	s.mu.Unlock()
	a.close()
	s.notify(w)
}

// setFailed records that the server could not be (re)started; a server
// whose tools were offered before is withdrawn.
func (s *server) setFailed(reason string) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.state, s.reason, s.lastErr = StateFailed, reason, reason
	w := s.withdrawLocked()
	s.mu.Unlock()
	s.notify(w)
}

// withdrawLocked marks the server's offered tools as gone for good and
// returns the notice to send once s.mu is released: nil when its tools
// were never offered, the notice was already sent, the manager is closing
// or no one listens. s.mu is held.
func (s *server) withdrawLocked() *Withdrawal {
	if s.offered == nil || s.withdrawn || s.closing || s.m.onWithdraw == nil {
		return nil
	}
	s.withdrawn = true
	return &Withdrawal{Server: s.cfg.Name, State: s.state, Reason: s.reason, Tools: slices.Clone(s.offered)}
}

// notify sends w, if any, to [Options.OnWithdraw]. s.mu must not be held.
func (s *server) notify(w *Withdrawal) {
	if w != nil {
		s.m.onWithdraw(*w)
	}
}

// dial starts one connection: process or HTTP session, handshake, and the
// complete tools/list, all inside the handshake bound.
func (s *server) dial(ctx context.Context) (*attempt, Manifest, error) {
	s.mu.Lock()
	s.gen++
	a := &attempt{gen: s.gen, ended: make(chan struct{})}
	s.mu.Unlock()

	onOver := func() {
		a.over.Store(true)
		s.logger().Warn("mcp server message over the size limit; connection killed", "limit_bytes", MaxMessage)
		a.close()
	}
	var transport mcp.Transport
	if s.cfg.URL != "" {
		a.http = newHTTPClient(s.cfg.AllowPrivate, onOver)
		transport = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: a.http, MaxRetries: 1, MaxEventSize: MaxMessage + 1024}
	} else {
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Env = s.env()
		cmd.Dir = s.cfg.Dir
		a.proc = &procTransport{cmd: cmd, onOver: onOver}
		transport = a.proc
	}
	gen := a.gen
	client := mcp.NewClient(&mcp.Implementation{Name: "joshbot", Version: "mcpclient"}, &mcp.ClientOptions{
		Logger: s.logger(),
		// No roots, sampling or elicitation: a server gets nothing from
		// joshbot but tool calls.
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.listChanged(gen) },
	})

	hctx, cancel := context.WithTimeout(ctx, s.m.handshake)
	defer cancel()
	// A caller that gives up (the manager closing), or a handshake bound
	// that passes, kills a process still in its handshake at once: it is
	// owed no graceful stop, and the SDK would otherwise give it one before
	// Connect returns, holding a waiting call past the bound. The stop
	// below runs before cancel, so a finished handshake kills nothing.
	defer context.AfterFunc(hctx, func() {
		if a.proc != nil {
			if p := a.proc.process(); p != nil {
				killGroup(p.cmd.Process)
			}
		}
	})()
	fail := func(step string, err error) (*attempt, Manifest, error) {
		if hctx.Err() != nil {
			// Closing, or past the bound: a server that never finished its
			// handshake is owed no graceful stop.
			a.kill()
		} else {
			a.close()
		}
		switch {
		case a.over.Load():
			return nil, Manifest{}, errorf("%s: %w; connection killed", step, ErrMessageTooLarge)
		case errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
			return nil, Manifest{}, errorf("%s: no answer within %s", step, s.m.handshake)
		}
		if a.proc != nil {
			if p := a.proc.process(); p != nil && p.wait(200*time.Millisecond) {
				return nil, Manifest{}, errorf("%s: %v (%s)", step, err, p.exitReason())
			}
		}
		return nil, Manifest{}, errorf("%s: %w", step, err)
	}
	sess, err := client.Connect(hctx, transport, nil)
	if err != nil {
		return fail("handshake", err)
	}
	a.mu.Lock()
	a.sess = sess
	a.mu.Unlock()
	if a.over.Load() { // the cap fired before sess was known to onOver
		return fail("handshake", ErrMessageTooLarge)
	}
	var tools []*mcp.Tool
	for t, err := range sess.Tools(hctx, nil) {
		if err != nil {
			return fail("tools/list", err)
		}
		if len(tools) == maxTools {
			return fail("tools/list", errorf("more than %d tools advertised", maxTools))
		}
		tools = append(tools, t)
	}
	man, err := manifestOf(tools)
	if err != nil {
		return fail("tools/list", err)
	}
	return a, man, nil
}

// env is the server's environment: the sandbox module's screened
// allowlist, then the declared variables as written.
func (s *server) env() []string {
	env := sandbox.ChildEnv(s.m.environ, nil)
	names := make([]string, 0, len(s.cfg.Env))
	for k := range s.cfg.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, k+"="+s.cfg.Env[k])
	}
	return env
}

// buildTools turns a manifest into what the model sees, noting tools that
// cannot be offered.
func (s *server) buildTools(man Manifest) ([]ToolStatus, []*Tool) {
	views := make([]ToolStatus, 0, len(man.Tools))
	var tools []*Tool
	for _, t := range man.Tools {
		v := ToolStatus{
			Name:        "mcp__" + s.cfg.Name + "__" + t.Name,
			ServerName:  t.Name,
			Description: modelDescription(s.cfg.Name, t.Description),
		}
		params, err := modelSchema(t.InputSchema)
		switch {
		case !validToolName(v.Name):
			v.Skipped = fmt.Sprintf("the name %q is not 1 to 64 letters, digits, _ or -", v.Name)
		case err != nil:
			v.Skipped = err.Error()
		}
		v.InputSchema = params
		if v.InputSchema == nil {
			v.InputSchema = t.InputSchema
		}
		views = append(views, v)
		if v.Skipped == "" {
			tools = append(tools, &Tool{s: s, name: v.Name, remote: t.Name, desc: v.Description, params: params})
		}
	}
	return views, tools
}

// ended handles the end of a connection: the server's own exit, a killed
// connection, or our Close.
func (s *server) ended(a *attempt) {
	// Closing the session even though its connection is gone releases what
	// the SDK keeps per session (its subscription listener among them).
	defer a.close()
	s.mu.Lock()
	if s.closing || s.cur != a {
		s.mu.Unlock()
		return
	}
	s.cur = nil
	why := a.why()
	if s.state != StateTrusted && s.state != StateSuspect {
		s.mu.Unlock()
		return
	}
	if s.restarts >= 1 {
		s.state, s.reason = StateFailed, "stopped again after its one restart ("+why+"): restart joshbot to try again"
		w := s.withdrawLocked()
		s.mu.Unlock()
		s.logger().Error("mcp server stopped again; giving up", "why", why)
		s.notify(w)
		return
	}
	s.restarts++
	s.restartLog = append(s.pruneRestarts(), s.m.now())
	s.lastErr = "stopped (" + why + ")"
	s.state, s.reason = StateRestarting, "stopped ("+why+"); restarting"
	s.mu.Unlock()
	s.logger().Warn("mcp server stopped; restarting once", "why", why, "after", s.m.delay)

	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		select {
		case <-s.m.after(s.m.delay):
		case <-s.m.ctx.Done():
			return
		}
		s.restart()
	}()
}

// restart reconnects a server that stopped. The new connection must
// advertise the same manifest as before, or the server is revoked.
func (s *server) restart() {
	na, man, err := s.dial(s.m.ctx)
	if err != nil {
		s.setFailed("stopped, and its restart failed: " + err.Error())
		s.logger().Error("mcp server restart failed", "err", err)
		return
	}
	if h := man.Hash(); h != s.hash {
		s.revokeChanged(na, man, "after its restart")
		return
	}
	if !s.adopt(na, StateTrusted, "") {
		na.close()
		return
	}
	s.logger().Info("mcp server restarted")
}

// revokeChanged withdraws trust from a server that now advertises man, and
// stops connection a.
func (s *server) revokeChanged(a *attempt, man Manifest, when string) {
	h := man.Hash()
	s.mu.Lock()
	d := diff(s.manifest, man)
	s.state = StateRevoked
	s.reason = fmt.Sprintf("its tools changed %s (%s); approval revoked: read `joshbot mcp list`, then run `joshbot mcp trust %s`", when, d, s.cfg.Name)
	// Status shows what the server advertises now, beside what was approved.
	s.approved = s.hash
	s.manifest, s.hash = man, h
	s.views, s.tools = s.buildTools(man)
	s.cur = nil
	w := s.withdrawLocked()
	s.mu.Unlock()
	if err := s.m.trust.Revoke(s.cfg.Name, h); err != nil {
		s.logger().Error("recording revocation", "err", err)
	}
	s.logger().Warn("mcp server manifest changed; approval revoked", "when", when, "diff", d)
	a.close()
	s.notify(w)
}

// listChanged handles notifications/tools/list_changed from connection
// gen: calls wait while the new list is read, hashed and compared, and the
// server is revoked if it differs. Nothing of the new list reaches the model.
func (s *server) listChanged(gen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return
	}
	if s.cur == nil && gen == s.gen {
		s.early = gen // the connection is still being set up
		return
	}
	if s.cur == nil || s.cur.gen != gen || s.state != StateTrusted {
		return
	}
	s.startCheck(s.cur)
}

// startCheck re-reads a's tool list in the background; s.mu is held.
func (s *server) startCheck(a *attempt) {
	if s.checking != nil {
		s.again = true
		return
	}
	s.checking = make(chan struct{})
	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		s.recheck(a)
	}()
}

func (s *server) recheck(a *attempt) {
	for {
		ctx, cancel := context.WithTimeout(s.m.ctx, s.m.handshake)
		var tools []*mcp.Tool
		var err error
		for t, e := range a.sess.Tools(ctx, nil) {
			if e != nil {
				err = e
				break
			}
			if len(tools) == maxTools {
				err = errorf("more than %d tools advertised", maxTools)
				break
			}
			tools = append(tools, t)
		}
		cancel()
		var man Manifest
		if err == nil {
			man, err = manifestOf(tools)
		}
		s.mu.Lock()
		stale := s.closing || s.cur != a
		s.mu.Unlock()
		switch {
		case stale:
		case err != nil:
			s.mu.Lock()
			s.state, s.reason, s.cur = StateFailed, "could not re-read its tools after it announced a change: "+err.Error(), nil
			w := s.withdrawLocked()
			s.mu.Unlock()
			s.logger().Error("mcp server tools/list after list_changed failed", "err", err)
			a.close()
			s.notify(w)
		case man.Hash() != s.hash:
			s.revokeChanged(a, man, "mid-session")
		}
		s.mu.Lock()
		if s.again && !stale && s.cur == a {
			s.again = false
			s.mu.Unlock()
			continue
		}
		s.again = false
		close(s.checking)
		s.checking = nil
		s.mu.Unlock()
		return
	}
}

// shutdown stops the server for good.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closing = true
	a := s.cur
	s.cur = nil
	if s.state == StateTrusted || s.state == StateRestarting {
		// Other states keep their reason: it is what the operator needs.
		s.state, s.reason = StateStopped, "joshbot stopped it"
	}
	s.mu.Unlock()
	if a != nil {
		a.close()
	}
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Name: s.cfg.Name, Transport: s.cfg.transportName(), State: s.state, SHA256: s.hash, Tools: slices.Clone(s.views),
		Restarts: len(s.pruneRestarts()), RestartBudget: s.m.budget, LastError: s.lastErr,
	}
	if s.state == StateFailed {
		st.RetryAt = s.retryAt
	}
	if s.state != StateTrusted {
		st.Reason = s.reason
	}
	if s.approved != "" && s.approved != s.hash {
		st.ApprovedSHA256 = s.approved
	}
	if st.Tools == nil {
		st.Tools = []ToolStatus{}
	}
	return st
}

// ready returns the live connection for a call, waiting out a manifest
// check or a health check in progress, and starting the health check of a
// suspect server (or the restart of one whose restart budget has come
// back).
func (s *server) ready(ctx context.Context) (*attempt, error) {
	s.mu.Lock()
	for {
		wait := s.checking
		if wait == nil {
			wait = s.healing
		}
		if wait == nil && s.state == StateStarting {
			wait = s.up
		}
		if wait == nil && (s.state == StateSuspect || s.state == StateFailed && !s.retryAt.IsZero() && !s.m.now().Before(s.retryAt)) {
			wait = s.startHeal()
		}
		if wait == nil {
			break
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	switch {
	case s.state == StateRevoked:
		// Not s.reason: its diff names tools of the new, unapproved list,
		// and nothing of that list may reach the model.
		return nil, errorf("%w: %s", errGone, RevokedMessage(s.cfg.Name))
	case s.state == StateFailed && !s.retryAt.IsZero():
		return nil, errorf("mcp server %q is down: %s", s.cfg.Name, Defang(s.reason))
	case s.state == StateFailed:
		return nil, errorf("%w: mcp server %q failed: %s", errGone, s.cfg.Name, Defang(s.reason))
	case s.state != StateTrusted || s.cur == nil:
		return nil, errorf("mcp server %q is %s: %s", s.cfg.Name, s.state, s.reason)
	}
	return s.cur, nil
}

// RevokedMessage is what the model is told about a tool of server after
// the server's approval was revoked: why, and the commands that bring the
// tools back. It names nothing the server advertised.
func RevokedMessage(server string) string {
	return fmt.Sprintf("mcp server %q was revoked because its tools changed since they were approved; an operator can read `joshbot mcp list`, approve it again with `joshbot mcp trust %s`, and restart joshbot", server, server)
}

// errGone marks a call to a server that will not serve again in this
// process; [Tool.Execute] names the tool in front of it.
var errGone = errors.New("is no longer available")

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
