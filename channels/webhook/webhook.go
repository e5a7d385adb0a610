// Package webhook receives signed GitHub webhook deliveries for the
// gateway.
//
// Each configured [Route] is a URL path with its own secret. A delivery is
// accepted only when X-Hub-Signature-256 carries the HMAC-SHA256 of the raw
// body under that secret (compared in constant time); an unsigned or badly
// signed delivery gets 401 and never reaches the sink. An accepted delivery
// becomes a [channels.Inbound] marked Trusted (the signature authenticated
// the sender, so the allowlist does not apply) that may name the agent
// profile to run, with X-GitHub-Delivery as its message id, so the router
// runs a redelivered delivery once.
//
// The signature covers the body but not the delivery id, so a captured
// delivery could be replayed under a fresh X-GitHub-Delivery. The receiver
// remembers every accepted delivery by its id and by the digest of its
// signed body for Options.ReplayWindow, in Options.StateDir across
// restarts, and acknowledges a repeat of either with 202 without running
// it again.
//
// # Quick start
//
//	rx, err := webhook.New(&webhook.Options{Addr: "127.0.0.1:8787", Routes: []webhook.Route{
//		{Name: "github", Path: "/hooks/github", Secret: secret, Agent: "reviewer"},
//	}})
//	if err != nil { ... }     // names webhooks.*
//	go rx.Start(ctx, router)  // listens on Addr until ctx ends
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/channels"
)

// Name is the channel name of webhook deliveries, the value of
// Inbound.Channel.
const Name = "webhook"

// DefaultMaxBody is the body cap when Options.MaxBody is zero. GitHub's
// ordinary events are a few KiB to a few hundred; a larger body is refused
// with 413 before it is read whole.
const DefaultMaxBody = 1 << 20

// maxPayloadText is how much of the payload is put into the agent's task.
const maxPayloadText = 32 << 10

// Route is one endpoint: a path, the secret its deliveries are signed
// with, and what runs them.
type Route struct {
	// Name identifies the route in logs and is the Conversation of its
	// deliveries, so each route has its own session.
	Name string
	// Path is the URL path GitHub posts to, such as "/hooks/github".
	Path string
	// Secret is the webhook secret configured on GitHub. It must not be
	// empty: an unsigned route would let anyone reach the agent.
	Secret string
	// Agent names the agent profile that runs this route's deliveries;
	// empty means the gateway's default.
	Agent string
	// Events lists the X-GitHub-Event values to run (such as "push",
	// "issues"); empty means every event. Others are answered 204 and not
	// run.
	Events []string
}

// Options configures a [Receiver].
type Options struct {
	// Addr is the address to listen on (webhooks.listen), such as
	// "127.0.0.1:8787". Empty means Start does not listen: the Receiver
	// is then only an http.Handler for a server the caller runs.
	Addr string
	// Routes are the endpoints; at least one is required.
	Routes []Route
	// MaxBody caps a delivery's body in bytes; zero means DefaultMaxBody.
	MaxBody int64
	// Logger receives the receiver's logs; nil means slog.Default().
	Logger *slog.Logger
	// StateDir is the directory that keeps the replay window ([ReplayFile])
	// across restarts. Empty keeps it in memory only, for the life of the
	// Receiver.
	StateDir string
	// ReplayWindow is how long an accepted delivery is remembered, by its
	// delivery id and by the digest of its signed body, so that it is not
	// run again. Zero means [DefaultReplayWindow].
	ReplayWindow time.Duration
	// ReplayEntries bounds how many deliveries are remembered; the oldest
	// are forgotten first. Zero means [DefaultReplayEntries].
	ReplayEntries int
	// Now is the clock the replay window is measured with; nil means
	// time.Now.
	Now func() time.Time
}

// Receiver is the webhook surface: an http.Handler that verifies and
// delivers, and a [channels.Channel] whose Start serves it on Options.Addr.
// It is safe for concurrent use.
type Receiver struct {
	opts   Options
	log    *slog.Logger
	routes map[string]*Route
	ready  chan net.Addr // the bound address, once listening
	replay *replayGuard

	mu   sync.Mutex
	sink channels.Sink // set while Start runs
}

var _ channels.Channel = (*Receiver)(nil)

// ErrListen is wrapped, with the network error, by the error Start returns
// when it cannot listen on Options.Addr.
var ErrListen = errors.New("webhook: cannot listen on")

// New checks opts and returns a receiver. Errors name the [Options] or
// [Route] field to change.
func New(opts *Options) (*Receiver, error) {
	if opts == nil || len(opts.Routes) == 0 {
		return nil, errors.New("webhook: Options.Routes is empty: add a Route with a Path and a Secret")
	}
	o := *opts
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Receiver{opts: o, log: log.With("channel", Name), routes: map[string]*Route{}, ready: make(chan net.Addr, 1)}
	for i := range o.Routes {
		rt := o.Routes[i]
		key := fmt.Sprintf("webhook: Options.Routes[%d]", i)
		if rt.Name == "" {
			return nil, errorf("%s.Name is empty: name the route", key)
		}
		if !strings.HasPrefix(rt.Path, "/") {
			return nil, errorf("%s.Path %q must start with /", key, rt.Path)
		}
		if rt.Secret == "" {
			return nil, errorf("%s (%s) has no Secret: set it to the GitHub webhook secret", key, rt.Name)
		}
		if _, dup := r.routes[rt.Path]; dup {
			return nil, errorf("%s.Path %q is used by another route", key, rt.Path)
		}
		r.routes[rt.Path] = &rt
	}
	g, err := newReplayGuard(&o, r.log)
	if err != nil {
		return nil, err
	}
	r.replay = g
	return r, nil
}

// Name implements [channels.Channel].
func (r *Receiver) Name() string { return Name }

// Start implements [channels.Channel]: it serves the receiver on
// Options.Addr until ctx ends, then shuts the server down and returns
// ctx.Err(). With no Addr it only makes the handler deliver to sink. A
// failure to listen is returned, wrapping [ErrListen]: it is a
// configuration error (Options.Addr).
func (r *Receiver) Start(ctx context.Context, sink channels.Sink) error {
	r.mu.Lock()
	if r.sink != nil {
		r.mu.Unlock()
		return errors.New("webhook: Start is already running")
	}
	r.sink = sink
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.sink = nil
		r.mu.Unlock()
	}()
	if r.opts.Addr == "" {
		<-ctx.Done()
		return ctx.Err()
	}
	l, err := net.Listen("tcp", r.opts.Addr)
	if err != nil {
		return errorf("%w %q (Options.Addr): %w", ErrListen, r.opts.Addr, err)
	}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	r.log.Info("listening for webhook deliveries", "addr", l.Addr().String())
	select {
	case r.ready <- l.Addr():
	default:
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-errc
		return ctx.Err()
	case err := <-errc:
		return errorf("webhook server: %w", err)
	}
}

// Addr returns the address Start listens on, waiting for it until ctx ends.
func (r *Receiver) Addr(ctx context.Context) (net.Addr, error) {
	select {
	case a := <-r.ready:
		r.ready <- a
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Send implements [channels.Channel]. A delivery has nobody to answer, so
// the agent's reply is logged (it is also in the route's session); files
// are named, never written anywhere.
func (r *Receiver) Send(_ context.Context, conversation string, msg channels.Outbound) error {
	names := make([]string, 0, len(msg.Files))
	for _, f := range msg.Files {
		names = append(names, f.Name)
	}
	r.log.Info("agent finished a webhook delivery", "route", conversation, "delivery", msg.ReplyTo, "reply", msg.Text, "files", names)
	return nil
}

// Sign returns the X-Hub-Signature-256 value GitHub sends for body under
// secret: "sha256=" and the hex HMAC-SHA256.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// verify reports whether header is the signature of body under secret,
// comparing in constant time.
func verify(secret string, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// ServeHTTP verifies and delivers one delivery. Status codes: 404 unknown
// path, 405 not a POST, 413 body over the cap, 401 missing or bad
// signature, 400 no delivery id, 204 an event the route does not run (and
// GitHub's ping), 503 the sink could not record it or Start is not running
// (GitHub shows the delivery as failed, and it can be redelivered), 202
// accepted.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rt := r.routes[req.URL.Path]
	if rt == nil {
		http.NotFound(w, req)
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "payload too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	if !verify(rt.Secret, body, req.Header.Get("X-Hub-Signature-256")) {
		r.log.Warn("webhook delivery refused: missing or wrong signature", "route", rt.Name, "remote", req.RemoteAddr)
		http.Error(w, "signature missing or invalid", http.StatusUnauthorized)
		return
	}
	delivery := req.Header.Get("X-GitHub-Delivery")
	event := req.Header.Get("X-GitHub-Event")
	if delivery == "" || event == "" {
		http.Error(w, "X-GitHub-Delivery and X-GitHub-Event are required", http.StatusBadRequest)
		return
	}
	if event == "ping" || !wants(rt.Events, event) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	r.mu.Lock()
	sink := r.sink
	r.mu.Unlock()
	if sink == nil {
		http.Error(w, "not running", http.StatusServiceUnavailable)
		return
	}
	inb := channels.Inbound{
		Channel:      Name,
		Conversation: rt.Name,
		Principal:    "github:" + sender(body),
		Text:         task(event, body),
		MessageID:    delivery,
		Trusted:      true,
		Agent:        rt.Agent,
		IsDirect:     true,
	}
	byID, byBody := replayKeys(rt.Name, delivery, body)
	if !r.replay.reserve(byID, byBody) {
		// Acknowledged, so GitHub does not retry, but not run again: the
		// same delivery, or the same signed body under a fresh id.
		r.log.Warn("webhook delivery already received; not run again", "route", rt.Name, "delivery", delivery)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if err := sink.Deliver(req.Context(), inb); err != nil {
		r.replay.release(byID, byBody)
		r.log.Error("webhook delivery not recorded", "route", rt.Name, "delivery", delivery, "err", err)
		http.Error(w, "not recorded; redeliver later", http.StatusServiceUnavailable)
		return
	}
	r.replay.commit(byID, byBody)
	w.WriteHeader(http.StatusAccepted)
}

func wants(events []string, event string) bool {
	if len(events) == 0 {
		return true
	}
	for _, e := range events {
		if e == event || e == "*" {
			return true
		}
	}
	return false
}

// sender returns the payload's sender login, or "unknown".
func sender(body []byte) string {
	var p struct {
		Sender struct {
			Login string `json:"login"`
		} `json:"sender"`
	}
	if json.Unmarshal(body, &p) == nil && p.Sender.Login != "" {
		return p.Sender.Login
	}
	return "unknown"
}

// task is what the agent is asked to do: the event named, the payload
// attached (cut at a rune boundary with a visible marker when long).
func task(event string, body []byte) string {
	var head struct {
		Action     string `json:"action"`
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	json.Unmarshal(body, &head)
	what := event
	if head.Action != "" {
		what += " (" + head.Action + ")"
	}
	if head.Repository.FullName != "" {
		what += " on " + head.Repository.FullName
	}
	payload := string(body)
	if !utf8.ValidString(payload) {
		payload = strings.ToValidUTF8(payload, "\uFFFD")
	}
	if len(payload) > maxPayloadText {
		cut := maxPayloadText
		for cut > 0 && !utf8.RuneStart(payload[cut]) {
			cut--
		}
		payload = payload[:cut] + "\n[payload truncated]"
	}
	return fmt.Sprintf("A signed GitHub webhook delivery arrived: %s. Its JSON payload follows.\n\n```json\n%s\n```", what, payload)
}
