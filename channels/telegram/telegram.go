package telegram

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Name is the adapter's channel name, the value of Inbound.Channel.
const Name = "telegram"

// Telegram is the Telegram adapter: long polling in, Bot API calls out. It
// implements [channels.Channel] and every optional ability of the contract
// ([channels.TypingIndicator], [channels.Streamer] with a Stop button,
// [channels.Picker], [channels.ApprovalPrompter], [channels.CommandMenu]),
// and sets reactions on its own. All methods are safe for concurrent use;
// Start must run at most once at a time.
type Telegram struct {
	opts Options
	log  *slog.Logger
	bot  *tele.Bot
	base string
	poll *http.Client // the long poll, which must end with its context
	// longPoll is the getUpdates request, but for its offset.
	longPoll *longPoll
	limits   channels.AttachmentLimits
	clock    clock
	// newBackoff builds the reconnect ladder; replaceable by tests.
	newBackoff func() backoff
	// pacePrivate and paceGroup space the messages of a reply per chat.
	pacePrivate, paceGroup *channels.Pacer

	mu        sync.Mutex
	me        *tele.User
	stops     map[string]*stopEntry
	pickers   map[string]*pickerEntry
	approvals map[string]*approvalEntry
}

// The abilities of the channel contract the adapter has: all of them.
var (
	_ channels.Channel          = (*Telegram)(nil)
	_ channels.TypingIndicator  = (*Telegram)(nil)
	_ channels.Streamer         = (*Telegram)(nil)
	_ channels.Picker           = (*Telegram)(nil)
	_ channels.CommandMenu      = (*Telegram)(nil)
	_ channels.ApprovalPrompter = (*Telegram)(nil)
	_ channels.Stream           = (*Stream)(nil)
)

// clock is the adapter's time source, injectable so throttles, keep-alives
// and retry waits are tested without sleeping.
type clock struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// backoff is the part of [channels.Backoff] the poller uses.
type backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// New returns an adapter for opts. It does not touch the network: the bot's
// identity is fetched when Start runs. A missing Token or a bad APIURL is
// an error naming the field.
func New(opts *Options) (*Telegram, error) {
	if opts == nil || strings.TrimSpace(opts.Token) == "" {
		return nil, errors.New("telegram: Options.Token is empty: set it to the token @BotFather gave the bot")
	}
	o := *opts
	if err := ValidateAPIURL(o.APIURL); err != nil {
		return nil, err
	}
	if o.HTTPTimeout <= 0 {
		o.HTTPTimeout = 60 * time.Second
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 30 * time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	base := baseURL(o.APIURL)
	bot, err := tele.NewBot(tele.Settings{
		URL:     base,
		Token:   o.Token,
		Offline: true, // identity comes from Start, under its backoff
		// The adapter polls by itself and never reads telebot's update
		// channel: one slot instead of the default hundred (17 KB).
		Updates: 1,
		Client:  &http.Client{Timeout: o.HTTPTimeout},
		OnError: func(error, tele.Context) {},
	})
	if err != nil {
		return nil, errorf("telegram: %w", err)
	}
	t := &Telegram{
		opts:       o,
		log:        log.With("channel", Name),
		bot:        bot,
		base:       base,
		poll:       &http.Client{},
		longPoll:   newLongPoll(base, o.Token, int(o.PollTimeout/time.Second)),
		limits:     channels.TelegramAttachmentLimitsFor(o.APIURL),
		clock:      clock{now: time.Now, after: time.After},
		newBackoff: func() backoff { return channels.NewBackoff(time.Second, time.Minute) },
		stops:      map[string]*stopEntry{},
		pickers:    map[string]*pickerEntry{},
		approvals:  map[string]*approvalEntry{},
	}
	now := func() time.Time { return t.clock.now() }
	after := func(d time.Duration) <-chan time.Time { return t.clock.after(d) }
	// Telegram asks bots to keep to about one message a second in a chat
	// and twenty a minute in a group; a short burst is tolerated.
	t.pacePrivate = channels.NewPacer(&channels.PacerOptions{Every: time.Second, Burst: 3, Now: now, After: after})
	t.paceGroup = channels.NewPacer(&channels.PacerOptions{Every: 3 * time.Second, Burst: 3, Now: now, After: after})
	return t, nil
}

// pace waits until one more message may go into chat (see [channels.Pacer]).
func (t *Telegram) pace(ctx context.Context, chat int64) error {
	p := t.pacePrivate
	if chat < 0 {
		p = t.paceGroup
	}
	return p.Wait(ctx, strconv.FormatInt(chat, 10))
}

// Name implements [channels.Channel].
func (t *Telegram) Name() string { return Name }

// Limits returns the outbound attachment caps in force for this adapter.
func (t *Telegram) Limits() channels.AttachmentLimits { return t.limits }

// scrub removes the bot token from err's text: HTTP client errors carry the
// request URL, and the token is part of every Bot API URL.
func (t *Telegram) scrub(err error) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), t.opts.Token, "<token>")
}

// sleep waits d on the adapter's clock or until ctx ends.
func (t *Telegram) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-t.clock.after(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// call runs one Bot API request through telebot, waiting out a 429's
// retry_after (up to three times) so a flood limit slows a reply down
// instead of losing it.
func (t *Telegram) call(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := f()
		var flood tele.FloodError
		if errors.As(err, &flood) && attempt < 3 {
			wait := time.Duration(flood.RetryAfter) * time.Second
			if wait <= 0 {
				wait = time.Second
			}
			t.log.Debug("flood limited; waiting", "retry_after", wait)
			if err := t.sleep(ctx, wait); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// raw calls a JSON method telebot has no wrapper for.
func (t *Telegram) raw(ctx context.Context, method string, params any) error {
	return t.call(ctx, func() error {
		_, err := t.bot.Raw(method, params)
		return err
	})
}

// errorCode returns the Bot API error code carried by err, or 0.
func errorCode(err error) int {
	var te *tele.Error
	if errors.As(err, &te) {
		return te.Code
	}
	var fe tele.FloodError
	if errors.As(err, &fe) {
		return http.StatusTooManyRequests
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code
	}
	// telebot formats codes it has no sentinel for as "telegram: ... (400)".
	s := err.Error()
	// (Parsed by hand: fmt.Sscanf would link fmt's whole scanner, ~25 KB.)
	if i := strings.LastIndex(s, "("); i >= 0 && strings.HasSuffix(s, ")") {
		num, _, _ := strings.Cut(s[i+1:], ")")
		if code, err := strconv.Atoi(strings.TrimLeft(num, " \t\r\n")); err == nil {
			return code
		}
	}
	return 0
}

// isParseRefusal reports whether Telegram refused the message's markup.
func isParseRefusal(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "can't parse entities")
}

// isNotModified reports the harmless refusal of an edit that changes
// nothing.
func isNotModified(err error) bool {
	return err != nil && strings.Contains(err.Error(), "message is not modified")
}
