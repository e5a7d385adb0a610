package discord

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/joshbot/joshbot/channels"
)

// Name is the adapter's channel name, the value of Inbound.Channel.
const Name = "discord"

// Options configures a [Discord] adapter. Token is required; every other
// zero value means the default given on the field.
type Options struct {
	// Token is the bot token from the Discord developer portal
	// (channels.discord.token_env names the variable holding it), without
	// the "Bot " prefix.
	Token string
	// SpoolDir is the media spool inbound attachments are saved into.
	// Empty means attachments are refused with a reply saying so.
	SpoolDir string
	// RespondToAllChannels lists channel ids where every message triggers
	// the bot, not only those that address it
	// (channels.discord.respond_to_all_channels). Reading messages that do
	// not mention the bot needs the privileged Message Content intent,
	// which the adapter requests only when this list is not empty (or
	// ReadAllContent is set).
	RespondToAllChannels []string
	// ReadAllContent requests the Message Content intent even with no
	// RespondToAllChannels, for channels.discord.respond_to_all. It must
	// also be enabled for the bot in the developer portal.
	ReadAllContent bool
	// CursorFile is where the adapter remembers, per conversation it
	// answers in, the newest message it has handed over, so that after a
	// restart it fetches what was sent while it was away: Discord does not
	// deliver those over a new gateway session. Empty turns catch-up off.
	CursorFile string
	// CatchUpAge is how old a missed message may be and still be handed
	// over on catch-up; zero means DefaultCatchUpAge.
	CatchUpAge time.Duration
	// MaxChunks caps how many messages one reply takes
	// (channels.discord.max_chunks); a longer reply is sent as a short head
	// with the whole text attached as reply.md (see channels.LongReply).
	// Zero means channels.DefaultMaxChunks.
	MaxChunks int
	// Logger receives the adapter's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Allower is the optional ability of a [channels.Sink] to say whether a
// sender is on its allowlist. The adapter asks before it spends anything on
// a sender; a sink without it is treated as refusing everyone for those
// purposes (no downloads, no direct replies), so the default is closed.
type Allower interface {
	Allowed(channel, principal string) bool
}

// Errors Start returns: configuration problems no retry fixes.
var (
	// ErrUnauthorized means Discord refused Options.Token.
	ErrUnauthorized = errors.New("discord refused the bot token (Options.Token): check the token in the developer portal")
	// ErrDisallowedIntents means the bot asked for the Message Content
	// intent without it being enabled in the developer portal.
	ErrDisallowedIntents = errors.New("discord refused the Message Content intent that Options.ReadAllContent and Options.RespondToAllChannels need: enable it under Bot > Privileged Gateway Intents, or leave those options unset")
)

// Discord is the Discord adapter. It implements [channels.Channel],
// [channels.TypingIndicator] and [channels.CommandMenu]. All
// methods are safe for concurrent use; Start must run at most once at a
// time.
type Discord struct {
	opts Options
	// pace spaces a reply's messages per channel.
	pace       *channels.Pacer
	log        *slog.Logger
	s          *discordgo.Session
	respondAll map[string]bool
	// download fetches an attachment URL; the client refuses private
	// addresses and hostOK keeps the fetch on Discord's CDN.
	download *http.Client
	hostOK   func(host string) bool
	// newBackoff builds the reconnect and redelivery ladders.
	newBackoff func() backoff
	cursors    *cursors
	catchUpAge time.Duration
	now        func() time.Time

	mu      sync.Mutex
	me      *discordgo.User
	appID   string
	menu    *keptMenu // a menu waiting for appID
	sink    channels.Sink
	runCtx  context.Context
	dropped chan struct{}
}

// The abilities of the channel contract the adapter has. Pickers, live
// streams and approvals would need message components, which it does not
// use yet.
var (
	_ channels.Channel         = (*Discord)(nil)
	_ channels.TypingIndicator = (*Discord)(nil)
	_ channels.CommandMenu     = (*Discord)(nil)
)

// backoff is the part of [channels.Backoff] the adapter uses.
type backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// New returns an adapter for opts. It does not touch the network.
func New(opts *Options) (*Discord, error) {
	if opts == nil || strings.TrimSpace(opts.Token) == "" {
		return nil, errors.New("discord: Options.Token is empty: set it to the bot token from the developer portal")
	}
	o := *opts
	o.Token = strings.TrimPrefix(strings.TrimSpace(o.Token), "Bot ")
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s, err := discordgo.New("Bot " + o.Token)
	if err != nil {
		return nil, errorf("discord: %w", err)
	}
	// Reconnection is the adapter's (under Start's context and backoff):
	// discordgo's own loop outlives any context and never gives up.
	s.ShouldReconnectOnError = false
	s.ShouldReconnectVoiceOnSessionError = false
	s.StateEnabled = false
	// discordgo logs through the log package; the adapter logs what
	// matters itself, through its slog logger.
	s.LogLevel = -1
	s.SyncEvents = true // events in order, and back-pressure while Deliver fails
	s.Client = &http.Client{Timeout: 30 * time.Second}
	s.Identify.Intents = discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages
	if len(o.RespondToAllChannels) > 0 || o.ReadAllContent {
		s.Identify.Intents |= discordgo.IntentMessageContent
	}
	d := &Discord{
		opts:       o,
		log:        log.With("channel", Name),
		s:          s,
		respondAll: map[string]bool{},
		download:   channels.SafeHTTPClient(time.Minute),
		hostOK: func(host string) bool {
			return channels.HostAllowed(host, "cdn.discordapp.com", "media.discordapp.net")
		},
		newBackoff: func() backoff { return channels.NewBackoff(time.Second, time.Minute) },
		catchUpAge: o.CatchUpAge,
		now:        time.Now,
		dropped:    make(chan struct{}, 1),
		// Discord allows five messages per five seconds in a channel.
		pace: channels.NewPacer(&channels.PacerOptions{Every: time.Second, Burst: 5}),
	}
	if d.catchUpAge <= 0 {
		d.catchUpAge = DefaultCatchUpAge
	}
	d.cursors = &cursors{path: o.CursorFile, log: d.log}
	for _, id := range o.RespondToAllChannels {
		d.respondAll[strings.TrimSpace(id)] = true
	}
	s.AddHandler(d.onReady)
	s.AddHandler(d.onMessage)
	s.AddHandler(d.onInteraction)
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		select {
		case d.dropped <- struct{}{}:
		default:
		}
	})
	return d, nil
}

// Name implements [channels.Channel].
func (d *Discord) Name() string { return Name }

func (d *Discord) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	d.mu.Lock()
	d.me = r.User
	if r.Application != nil {
		d.appID = r.Application.ID
	}
	d.mu.Unlock()
	if r.User != nil {
		d.log.Info("connected", "bot", r.User.Username)
	}
	if _, ctx := d.running(); ctx != nil {
		d.publishPending(ctx)
	}
	// A new session, not a resumed one: nothing sent meanwhile will be
	// replayed, so fetch it. Live events wait on this goroutine.
	if sink, ctx := d.running(); sink != nil {
		d.catchUp(ctx, sink)
	}
}

// Start implements [channels.Channel]. It opens the gateway connection and
// keeps it open until ctx ends, then closes it and returns ctx.Err(). A
// failed dial or a dropped connection is retried on a jittered backoff
// (resuming the session, so missed events are replayed); only a refused
// token or intent is returned, as [ErrUnauthorized] or
// [ErrDisallowedIntents].
func (d *Discord) Start(ctx context.Context, sink channels.Sink) error {
	if _, ok := sink.(Allower); !ok {
		d.log.Warn("sink does not report its allowlist: attachments are not downloaded and no direct replies are sent")
	}
	d.cursors.load()
	d.mu.Lock()
	d.sink, d.runCtx = sink, ctx
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.sink, d.runCtx = nil, nil
		d.mu.Unlock()
	}()
	// Drain a stale drop signal from an earlier run.
	select {
	case <-d.dropped:
	default:
	}
	bo := d.newBackoff()
	for {
		err := d.s.Open()
		if err == nil || errors.Is(err, discordgo.ErrWSAlreadyOpen) {
			bo.Reset()
			select {
			case <-ctx.Done():
				d.s.Close()
				return ctx.Err()
			case <-d.dropped:
				d.log.Warn("gateway connection lost; resuming")
				// Make sure the old socket is gone before the next Open.
				d.s.Close()
				select {
				case <-d.dropped: // the Close we just made
				default:
				}
			}
		} else {
			if fatal := classify(err); fatal != nil {
				return fatal
			}
			d.log.Warn("gateway connection failed; backing off", "err", d.scrub(err))
		}
		if err := bo.Sleep(ctx); err != nil {
			return err
		}
	}
}

// classify turns the errors no retry fixes into the adapter's sentinels.
func classify(err error) error {
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == http.StatusUnauthorized {
		return ErrUnauthorized
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case 4004:
			return ErrUnauthorized
		case 4014:
			return ErrDisallowedIntents
		}
	}
	return nil
}

// scrub removes the token from an error's text.
func (d *Discord) scrub(err error) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), d.opts.Token, "<token>")
}

// running returns the sink and context of the current Start, if any.
func (d *Discord) running() (channels.Sink, context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sink, d.runCtx
}

func (d *Discord) self() *discordgo.User {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.me
}
