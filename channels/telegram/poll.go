package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Allower is the optional ability of a [channels.Sink] to say whether a
// sender is on its allowlist. The adapter discovers it by type assertion
// (the gateway's channels.Router has it) and asks before it spends anything
// on a sender: no media is downloaded, no reply is sent and no button press
// is honoured for a sender it refuses. A sink without it is treated as
// refusing everyone for those purposes, so the default is closed; plain
// text is still handed to Deliver, which applies its own gate.
type Allower interface {
	Allowed(channel, principal string) bool
}

// gate answers the allowlist question for one sender.
type gate func(user *tele.User) (principal string, allowed bool)

// newGate builds the adapter's gate from what sink can do.
//
// Principal is the sender's numeric user id, unless the allowlist admits
// the sender only by @handle, in which case it is "@handle": the router
// then matches whichever form the operator wrote in allow_from.
func newGate(sink channels.Sink) gate {
	a, _ := sink.(Allower)
	return func(u *tele.User) (string, bool) {
		id := fmt.Sprint(u.ID)
		if a == nil {
			return id, false
		}
		if a.Allowed(Name, id) {
			return id, true
		}
		if u.Username != "" && a.Allowed(Name, "@"+u.Username) {
			return "@" + u.Username, true
		}
		return id, false
	}
}

// apiError is a refusal from the Bot API read by the adapter's own long
// poll (telebot's errors cover every other call).
type apiError struct {
	Code        int
	Description string
	RetryAfter  int
}

func (e *apiError) Error() string {
	return fmt.Sprintf("telegram: %s (%d)", e.Description, e.Code)
}

// ErrUnauthorized is returned by Start when the Bot API rejects the token:
// a configuration error no amount of retrying fixes.
var ErrUnauthorized = errors.New("telegram: the Bot API refused the token (401/404): check Options.Token, and Options.APIURL if set")

// Start implements [channels.Channel]. It long-polls getUpdates until ctx
// ends and returns ctx.Err(). Network failures and server errors are
// retried on a jittered backoff that resets only once an update actually
// arrives; only a token the Bot API refuses is returned, as
// [ErrUnauthorized]. An update is acknowledged (the offset moves past it)
// only after sink.Deliver returned nil for it, so a failed delivery comes
// back on the next poll.
func (t *Telegram) Start(ctx context.Context, sink channels.Sink) error {
	g := newGate(sink)
	if _, ok := sink.(Allower); !ok {
		t.log.Warn("sink does not report its allowlist: media is not downloaded, buttons are not honoured and no direct replies are sent")
	}
	bo := t.newBackoff()

	if err := t.identify(ctx, bo); err != nil {
		return err
	}
	offset := 0
	for {
		started := t.clock.now()
		updates, err := t.getUpdates(ctx, offset)
		if ctx.Err() != nil && len(updates) == 0 {
			return ctx.Err()
		}
		if err != nil {
			if c := errorCode(err); c == http.StatusUnauthorized || c == http.StatusNotFound {
				return ErrUnauthorized
			}
			var ae *apiError
			if errors.As(err, &ae) && ae.RetryAfter > 0 {
				t.log.Warn("getUpdates flood limited", "retry_after", ae.RetryAfter)
				if err := t.sleep(ctx, time.Duration(ae.RetryAfter)*time.Second); err != nil {
					return err
				}
				continue
			}
			t.log.Warn("getUpdates failed; backing off", "err", t.scrub(err))
			if err := bo.Sleep(ctx); err != nil {
				return err
			}
			continue
		}
		if len(updates) == 0 {
			// A server that answers an empty poll at once (an emulator, a
			// proxy that drops the timeout) must not be hammered.
			if t.clock.now().Sub(started) < time.Second {
				if err := t.sleep(ctx, 200*time.Millisecond); err != nil {
					return err
				}
			}
			continue
		}
		bo.Reset()
		var err2 error
		offset, err2 = t.deliverBatch(ctx, sink, g, updates, offset, bo)
		if err2 != nil {
			return err2
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// deliverBatch hands updates to the sink in order and returns the offset
// past the last one delivered. A batch in hand is delivered even when
// shutdown began while it was in flight: recording it costs a disk write,
// and a server that forgets what it handed out (an emulator, a proxy)
// would lose it. The first failure stops the batch, unacknowledged, so it
// comes back on the next poll.
func (t *Telegram) deliverBatch(ctx context.Context, sink channels.Sink, g gate, updates []tele.Update, offset int, bo backoff) (int, error) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, u := range updates {
		if err := t.handleUpdate(dctx, sink, g, u); err != nil {
			if ctx.Err() != nil {
				return offset, ctx.Err()
			}
			t.log.Warn("update not delivered; it will be fetched again", "update", u.ID, "err", t.scrub(err))
			return offset, bo.Sleep(ctx)
		}
		offset = u.ID + 1
	}
	return offset, nil
}

// identify learns the bot's own user (for mention detection), retrying
// network failures on the backoff.
func (t *Telegram) identify(ctx context.Context, bo backoff) error {
	for {
		var me tele.User
		err := t.callJSON(ctx, "getMe", struct{}{}, &me)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			t.mu.Lock()
			t.me = &me
			t.mu.Unlock()
			t.log.Info("connected", "bot", "@"+me.Username)
			return nil
		}
		if c := errorCode(err); c == http.StatusUnauthorized || c == http.StatusNotFound {
			return ErrUnauthorized
		}
		t.log.Warn("getMe failed; backing off", "err", t.scrub(err))
		if err := bo.Sleep(ctx); err != nil {
			return err
		}
	}
}

// getUpdatesParams are the parameters of a long poll.
type getUpdatesParams struct {
	Offset         int      `json:"offset"`
	Timeout        int      `json:"timeout"`
	AllowedUpdates []string `json:"allowed_updates"`
}

// allowedUpdates are the update kinds the adapter handles.
var allowedUpdates = []string{"message", "edited_message", "callback_query"}

func (t *Telegram) getUpdates(ctx context.Context, offset int) ([]tele.Update, error) {
	// A struct, not a map: an idle gateway runs this every poll cycle, and
	// encoding a map walks (and keeps resident) encoding/json's map and
	// key-sorting code, which nothing else in an idle process touches.
	params := getUpdatesParams{
		Offset:         offset,
		Timeout:        int(t.opts.PollTimeout / time.Second),
		AllowedUpdates: allowedUpdates,
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.PollTimeout+15*time.Second)
	defer cancel()
	var out []tele.Update
	err := t.callJSON(ctx, "getUpdates", params, &out)
	return out, err
}

// callJSON is a context-aware Bot API call: the long poll must end the
// moment the adapter stops, which telebot's calls cannot.
func (t *Telegram) callJSON(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"/bot"+t.opts.Token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.poll.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	var env struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		Code        int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(data, &env); err != nil || (!env.OK && env.Code == 0) {
		if resp.StatusCode != http.StatusOK {
			return &apiError{Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode)}
		}
		return fmt.Errorf("telegram %s: unreadable response", method)
	}
	if !env.OK {
		return &apiError{Code: env.Code, Description: env.Description, RetryAfter: env.Parameters.RetryAfter}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	return nil
}
