// Package slack is the Slack adapter of the gateway, in Socket Mode.
//
// Socket Mode needs no public URL: the adapter asks apps.connections.open
// (with the app-level token) for a websocket URL, dials it, and receives
// events as envelopes, each acknowledged only after the sink recorded it,
// so an envelope the gateway could not record is sent again by Slack.
// Replies go out with chat.postMessage (with the bot token), split at
// [MaxMessage] characters by [channels.Chunk].
//
// The small Socket Mode client is written here on gorilla/websocket, which
// the module already carries for Discord, rather than pulling in the whole
// slack-go SDK for four calls and one envelope format.
//
// # Identifiers
//
// Conversation is the Slack channel id, or "<channel id>:<thread ts>" for
// a thread: a thread is its own conversation, and a message that addresses
// the bot at the top of a channel starts one (the answer goes into a thread
// under it). Direct messages stay flat unless the user threads them.
// MessageID is "<channel id>:<ts>", the same for the message event and the
// app_mention event of one message, so the router runs it once. Principal
// is the Slack user id.
//
// # When the bot answers
//
// A direct message (channel_type "im") always triggers. In a channel a
// message triggers when it mentions the bot (an app_mention event, or a
// user element naming the bot in the message's rich-text blocks, or Slack's
// <@BOTID> markup), when it is posted in a thread the bot has answered in,
// or when the router's respond_to_all is on. Messages of bots, the bot's
// own included, edits and other subtypes never trigger it.
//
// # Files
//
// With Options.SpoolDir set, the files of a message from a sender on the
// sink's allowlist ([Allower]) are downloaded with the bot token (it needs
// files:read), only from Slack's hosts, into the spool, under
// [channels.MaxAttachmentBytes]; a file the adapter will not take is
// explained in a reply. A stranger's files are never fetched.
package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/joshbot/joshbot/channels"
)

// Name is the adapter's channel name, the value of Inbound.Channel.
const Name = "slack"

// MaxMessage is how many characters one posted message carries. Slack
// truncates a message's text at 40,000 characters and recommends staying
// under 4,000 for readability; the adapter splits at 4,000.
const MaxMessage = 4000

// DefaultAPIURL is Slack's Web API root.
const DefaultAPIURL = "https://slack.com/api/"

// Options configures a [Slack] adapter. AppToken and BotToken are
// required.
type Options struct {
	// AppToken is the app-level token (xapp-...) with connections:write,
	// which opens Socket Mode connections (channels.slack.app_token_env).
	AppToken string
	// BotToken is the bot token (xoxb-...) that posts replies
	// (channels.slack.bot_token_env).
	BotToken string
	// APIURL is the Web API root; empty means DefaultAPIURL. Tests point
	// it at a fake.
	APIURL string
	// SpoolDir is the media spool the files of allowed senders are saved
	// into (the bot token needs the files:read scope). Empty means files
	// are refused with a reply saying so.
	SpoolDir string
	// MaxChunks caps how many messages one reply takes
	// (channels.slack.max_chunks); a longer reply is posted as a short head
	// with the whole text shared as reply.md (see channels.LongReply).
	// Zero means channels.DefaultMaxChunks.
	MaxChunks int
	// Logger receives the adapter's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Errors Start returns: configuration problems no retry fixes.
var (
	// ErrInvalidAuth means Slack refused one of the tokens.
	ErrInvalidAuth = errors.New("slack refused a token: check Options.AppToken (xapp-, connections:write) and Options.BotToken (xoxb-)")
	// ErrLinkDisabled means Socket Mode was turned off for the app.
	ErrLinkDisabled = errors.New("slack disabled the Socket Mode link: turn Socket Mode on in the app's settings")
)

// Slack is the Slack adapter. It implements [channels.Channel] and none of
// the optional abilities: typing, live replies, pickers and approvals would
// need Slack APIs (Block Kit interactivity) it does not use yet. All methods
// are safe for concurrent use; Start must run at most once at a time.
type Slack struct {
	// pace spaces a reply's posts per channel.
	pace *channels.Pacer
	opts Options
	log  *slog.Logger
	api  string
	http *http.Client
	// download fetches inbound files: a client that refuses private
	// addresses.
	download *http.Client
	// newBackoff builds the reconnect ladder; replaceable by tests.
	newBackoff func() backoff

	mu      sync.Mutex
	botID   string
	threads map[string]time.Time // thread conversations the bot answered in
	recent  recentIDs            // message ids handed over lately
}

var _ channels.Channel = (*Slack)(nil)

type backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// maxThreads bounds the memory of threads the bot answered in.
const maxThreads = 4096

// New returns an adapter for opts. It does not touch the network.
func New(opts *Options) (*Slack, error) {
	if opts == nil || strings.TrimSpace(opts.AppToken) == "" {
		return nil, errors.New("slack: Options.AppToken is empty: set it to the app-level xapp- token")
	}
	if strings.TrimSpace(opts.BotToken) == "" {
		return nil, errors.New("slack: Options.BotToken is empty: set it to the xoxb- bot token")
	}
	o := *opts
	api := o.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errorf("slack: API URL %q is not an http(s) URL", api)
	}
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Slack{
		opts:       o,
		log:        log.With("channel", Name),
		api:        api,
		http:       &http.Client{Timeout: 30 * time.Second},
		download:   channels.SafeHTTPClient(time.Minute),
		newBackoff: func() backoff { return channels.NewBackoff(time.Second, time.Minute) },
		threads:    map[string]time.Time{},
		// Slack allows about one message a second in a channel, with
		// short bursts.
		pace: channels.NewPacer(&channels.PacerOptions{Every: time.Second, Burst: 3}),
	}, nil
}

// Name implements [channels.Channel].
func (s *Slack) Name() string { return Name }

// apiError is a Web API refusal ({"ok": false, "error": "..."}).
type apiError struct{ Method, Code string }

func (e *apiError) Error() string { return "slack " + e.Method + ": " + e.Code }

// call posts params as JSON to a Web API method with token and decodes the
// answer into out. A 429 is waited out (Retry-After) up to three times.
func (s *Slack) call(ctx context.Context, token, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return s.post(ctx, token, method, "application/json; charset=utf-8", string(body), out)
}

// callForm is call for the methods that take form-encoded arguments (the
// file upload methods).
func (s *Slack) callForm(ctx context.Context, token, method string, form url.Values, out any) error {
	return s.post(ctx, token, method, "application/x-www-form-urlencoded", form.Encode(), out)
}

func (s *Slack) post(ctx context.Context, token, method, contentType, body string, out any) error {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.api+method, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := s.http.Do(req)
		if err != nil {
			return errorf("slack %s: %w", method, err)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		resp.Body.Close()
		if err != nil {
			return errorf("slack %s: %w", method, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 3 {
			wait := time.Second
			if n, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil && n > 0 {
				wait = n
			}
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if resp.StatusCode != http.StatusOK {
			return errorf("slack %s: %s", method, resp.Status)
		}
		var env struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(data, &env); err != nil {
			return errorf("slack %s: unreadable answer: %w", method, err)
		}
		if !env.OK {
			return &apiError{Method: method, Code: env.Error}
		}
		if out != nil {
			return json.Unmarshal(data, out)
		}
		return nil
	}
}

// authFailure reports a refusal no retry fixes.
func authFailure(err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.Code {
	case "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type":
		return true
	}
	return false
}

// Start implements [channels.Channel]. It learns the bot's user id
// (auth.test), then opens Socket Mode connections until ctx ends, and
// returns ctx.Err(). Network failures and Slack's disconnect requests are
// met with a new connection on a jittered backoff; only a refused token
// ([ErrInvalidAuth]) or a disabled link ([ErrLinkDisabled]) is returned.
func (s *Slack) Start(ctx context.Context, sink channels.Sink) error {
	bo := s.newBackoff()
	for {
		var who struct {
			UserID string `json:"user_id"`
		}
		err := s.call(ctx, s.opts.BotToken, "auth.test", struct{}{}, &who)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			s.mu.Lock()
			s.botID = who.UserID
			s.mu.Unlock()
			break
		}
		if authFailure(err) {
			return ErrInvalidAuth
		}
		s.log.Warn("auth.test failed; backing off", "err", err)
		if err := bo.Sleep(ctx); err != nil {
			return err
		}
	}
	for {
		err := s.connect(ctx, sink, bo)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case errors.Is(err, ErrLinkDisabled):
			return err
		case authFailure(err):
			return ErrInvalidAuth
		case errors.Is(err, errRefresh):
			s.log.Info("slack asked for a new connection")
			continue // Slack asked politely: reconnect at once
		}
		s.log.Warn("socket mode connection lost; reconnecting", "err", err)
		if err := bo.Sleep(ctx); err != nil {
			return err
		}
	}
}

var errRefresh = errors.New("slack asked for a new connection")

// envelope is one Socket Mode message.
type envelope struct {
	Type       string          `json:"type"`
	EnvelopeID string          `json:"envelope_id"`
	Payload    json.RawMessage `json:"payload"`
	Reason     string          `json:"reason"`
}

// connect runs one Socket Mode connection until it ends.
func (s *Slack) connect(ctx context.Context, sink channels.Sink, bo backoff) error {
	var open struct {
		URL string `json:"url"`
	}
	if err := s.call(ctx, s.opts.AppToken, "apps.connections.open", struct{}{}, &open); err != nil {
		return err
	}
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, open.URL, nil)
	if err != nil {
		return errorf("slack: dial socket: %w", err)
	}
	defer conn.Close()
	// End the read when ctx ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	for {
		var env envelope
		if err := conn.ReadJSON(&env); err != nil {
			return errorf("slack: read socket: %w", err)
		}
		switch env.Type {
		case "hello":
			continue
		case "disconnect":
			if env.Reason == "link_disabled" {
				return ErrLinkDisabled
			}
			return errRefresh
		case "events_api", "slash_commands":
			bo.Reset()
			if err := s.handle(ctx, sink, env); err != nil {
				// Not acknowledged: Slack sends the envelope again.
				s.log.Warn("event not delivered; Slack will send it again", "envelope", env.EnvelopeID, "err", err)
				continue
			}
		}
		if env.EnvelopeID != "" {
			if err := conn.WriteJSON(map[string]string{"envelope_id": env.EnvelopeID}); err != nil {
				return errorf("slack: acknowledge: %w", err)
			}
		}
	}
}
