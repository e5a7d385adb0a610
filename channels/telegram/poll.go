package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
		// Only the two fields the adapter reads: decoding the whole
		// tele.User would keep encoding/json's field table of a
		// fifteen-field struct on the heap of an idle gateway.
		var me struct {
			ID       int64  `json:"id"`
			Username string `json:"username"`
		}
		err := t.callJSON(ctx, "getMe", t.base+"/bot"+t.opts.Token+"/getMe", []byte("{}"), &me)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			t.mu.Lock()
			t.me = &tele.User{ID: me.ID, Username: me.Username}
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

// allowedUpdates are the update kinds the adapter handles, as the JSON
// value of getUpdates' allowed_updates.
const allowedUpdates = `["message","edited_message","callback_query"]`

// longPoll is what every getUpdates request of an adapter shares, built
// once: an idle gateway sends one every poll cycle, and nothing in it but
// the offset ever changes.
type longPoll struct {
	url  string // the getUpdates endpoint
	head []byte // the JSON body up to the offset
	tail []byte // the JSON body after the offset
}

// newLongPoll returns the getUpdates request of the Bot API at base with
// the given token, asking updates to be held up to timeout seconds.
func newLongPoll(base, token string, timeout int) *longPoll {
	tail := strconv.AppendInt([]byte(`,"timeout":`), int64(timeout), 10)
	return &longPoll{
		url:  base + "/bot" + token + "/getUpdates",
		head: []byte(`{"offset":`),
		tail: append(tail, `,"allowed_updates":`+allowedUpdates+`}`...),
	}
}

// body is the JSON body of the long poll from offset, the bytes
// encoding/json writes for the parameters. It is built by hand: the
// encoder's reflection over a parameter struct would keep its code and the
// type descriptors it walks resident in an idle gateway, which otherwise
// touches none of them.
func (p *longPoll) body(offset int) []byte {
	b := make([]byte, 0, len(p.head)+20+len(p.tail))
	b = append(b, p.head...)
	b = appendInt(b, offset)
	return append(b, p.tail...)
}

// appendInt appends n in decimal. (strconv.AppendInt reads its digit
// pairs from a table in the executable's read-only data, in a page the
// rest of an idle poll cycle leaves alone.)
func appendInt(b []byte, n int) []byte {
	var digits [20]byte
	i := len(digits)
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	for {
		i--
		digits[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if n < 0 {
		b = append(b, '-')
	}
	return append(b, digits[i:]...)
}

func (t *Telegram) getUpdates(ctx context.Context, offset int) ([]tele.Update, error) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.PollTimeout+15*time.Second)
	defer cancel()
	var out []tele.Update
	err := t.callJSON(ctx, "getUpdates", t.longPoll.url, t.longPoll.body(offset), &out)
	return out, err
}

// callJSON is a context-aware Bot API call with a JSON body: the long poll
// must end the moment the adapter stops, which telebot's calls cannot.
// result may be nil when only success matters.
func (t *Telegram) callJSON(ctx context.Context, method, url string, body []byte, result any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
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
	if _, updates := result.(*[]tele.Update); updates && emptyResult(data) {
		// The answer of every quiet long poll, read without
		// encoding/json for the reason getUpdatesBody gives. Decoding
		// it would leave the list empty too.
		return nil
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
		return errorf("telegram %s: unreadable response", method)
	}
	if !env.OK {
		return &apiError{Code: env.Code, Description: env.Description, RetryAfter: env.Parameters.RetryAfter}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		return errorf("telegram %s: %w", method, err)
	}
	return nil
}

// emptyResult reports whether data is the Bot API's answer of success with
// an empty list, {"ok":true,"result":[]} (the two members in either
// order, JSON whitespace allowed between tokens). Anything else, however
// equivalent, is left to encoding/json.
func emptyResult(data []byte) bool {
	return matchTokens(data, emptyOKResult) || matchTokens(data, emptyResultOK)
}

var (
	emptyOKResult = []string{"{", `"ok"`, ":", "true", ",", `"result"`, ":", "[", "]", "}"}
	emptyResultOK = []string{"{", `"result"`, ":", "[", "]", ",", `"ok"`, ":", "true", "}"}
)

// matchTokens reports whether data is exactly the tokens in order, with
// nothing but JSON whitespace before, between and after them.
func matchTokens(data []byte, tokens []string) bool {
	for _, tok := range tokens {
		data = bytes.TrimLeft(data, " \t\r\n")
		if !bytes.HasPrefix(data, []byte(tok)) {
			return false
		}
		data = data[len(tok):]
	}
	return len(bytes.TrimLeft(data, " \t\r\n")) == 0
}
