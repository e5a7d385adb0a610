package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

// fakeAPI is a Go fake of the Bot API for what the npm emulator lacks:
// drafts, reactions, edits, callbacks, getFile downloads, 429s and
// connection failures. It records every call.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	calls   []apiCall
	updates []map[string]any
	nextID  int
	files   map[string][]byte // file_id -> bytes (file_path is the id)
	// declared overrides the file_size getFile reports, to model a lie.
	declared map[string]int
	// override answers a method instead of the default; returning
	// status 0 falls through to the default.
	override func(c apiCall) (status int, body string)
	// dropPolls makes the next n getUpdates calls fail at the connection.
	dropPolls int
	// again holds redelivered updates, served once whatever the offset:
	// what Telegram does when a client crashed before confirming them.
	again   []map[string]any
	changed chan struct{}
}

type apiCall struct {
	Method string
	Params map[string]string
	Files  map[string]int // multipart field -> bytes uploaded
}

func newFake(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, nextID: 1000, files: map[string][]byte{}, declared: map[string]int{}, changed: make(chan struct{}, 1)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

const token = "123:SECRET"

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/file/bot"+token+"/") {
		id := strings.TrimPrefix(r.URL.Path, "/file/bot"+token+"/")
		f.record(apiCall{Method: "download", Params: map[string]string{"file_id": id}})
		f.mu.Lock()
		data, ok := f.files[id]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+token+"/")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	c := apiCall{Method: method, Params: map[string]string{}, Files: map[string]int{}}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		// Parts are read by hand: telebot names no file for a photo, and
		// the form parser would take that upload for a plain value.
		mr, err := r.MultipartReader()
		if err != nil {
			f.t.Errorf("multipart: %v", err)
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			if p.Header.Get("Content-Type") == "application/octet-stream" {
				c.Files[p.FormName()] = len(b)
			} else {
				c.Params[p.FormName()] = string(b)
			}
		}
	} else {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		for k, v := range m {
			if s, ok := v.(string); ok {
				c.Params[k] = s
			} else {
				b, _ := json.Marshal(v)
				c.Params[k] = string(b)
			}
		}
	}
	if method == "getUpdates" {
		f.mu.Lock()
		drop := f.dropPolls > 0
		if drop {
			f.dropPolls--
		}
		f.mu.Unlock()
		if drop {
			f.record(c)
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
	}
	f.record(c)
	f.mu.Lock()
	override := f.override
	f.mu.Unlock()
	if override != nil {
		if status, body := override(c); status != 0 {
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch method {
	case "getMe":
		io.WriteString(w, `{"ok":true,"result":{"id":777,"is_bot":true,"first_name":"Josh","username":"JoshTestBot"}}`)
	case "getUpdates":
		off, _ := strconv.Atoi(c.Params["offset"])
		var out []map[string]any
		deadline := time.Now().Add(300 * time.Millisecond)
		for {
			f.mu.Lock()
			out = append(out[:0], f.again...)
			f.again = nil
			for _, u := range f.updates {
				if int(u["update_id"].(int)) >= off {
					out = append(out, u)
				}
			}
			f.mu.Unlock()
			if len(out) > 0 || time.Now().After(deadline) || r.Context().Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": out})
	case "getFile":
		id := c.Params["file_id"]
		f.mu.Lock()
		data, ok := f.files[id]
		f.mu.Unlock()
		if !ok {
			io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: invalid file_id"}`)
			return
		}
		n := len(data)
		if d, ok := f.declared[id]; ok {
			n = d
		}
		fmt.Fprintf(w, `{"ok":true,"result":{"file_id":%q,"file_size":%d,"file_path":%q}}`, id, n, id)
	case "sendMessage", "editMessageText", "sendPhoto", "sendDocument", "sendVoice":
		f.mu.Lock()
		f.nextID++
		id := f.nextID
		f.mu.Unlock()
		if mid := c.Params["message_id"]; mid != "" {
			id, _ = strconv.Atoi(mid)
		}
		chat, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
		msg := map[string]any{"message_id": id, "date": 1, "chat": map[string]any{"id": chat, "type": "private"}, "text": c.Params["text"]}
		switch method {
		case "sendPhoto":
			msg["photo"] = []map[string]any{{"file_id": "up", "file_unique_id": "u", "width": 1, "height": 1}}
		case "sendDocument":
			msg["document"] = map[string]any{"file_id": "up", "file_unique_id": "u"}
		case "sendVoice":
			msg["voice"] = map[string]any{"file_id": "up", "file_unique_id": "u", "duration": 1}
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": msg})
	default:
		io.WriteString(w, `{"ok":true,"result":true}`)
	}
}

func (f *fakeAPI) record(c apiCall) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// push queues an update; id is assigned.
func (f *fakeAPI) push(u map[string]any) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := 1 + len(f.updates)
	u["update_id"] = id
	f.updates = append(f.updates, u)
	return id
}

// pushAgain serves the update with id once more, whatever the offset.
func (f *fakeAPI) pushAgain(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.again = append(f.again, f.updates[id-1])
}

// callsOf returns the recorded calls of method.
func (f *fakeAPI) callsOf(method string) []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiCall
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls until cond holds or fails the test after 5s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recordingSink is a Sink with an allowlist of user ids.
type recordingSink struct {
	mu      sync.Mutex
	allow   map[string]bool
	got     []channels.Inbound
	fail    int // Deliver fails this many times first
	asked   []string
	refused int
}

func (s *recordingSink) Allowed(channel, principal string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, principal)
	return channel == telegram.Name && s.allow[principal]
}

func (s *recordingSink) Deliver(_ context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		s.refused++
		return fmt.Errorf("inbox full")
	}
	s.got = append(s.got, inb)
	return nil
}

func (s *recordingSink) delivered() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]channels.Inbound(nil), s.got...)
}

// backoffLog records what the poller did with its ladder.
type backoffLog struct {
	mu     sync.Mutex
	events []string
}

func (b *backoffLog) Sleep(ctx context.Context) error {
	b.mu.Lock()
	b.events = append(b.events, "sleep")
	b.mu.Unlock()
	return ctx.Err()
}

func (b *backoffLog) Reset() {
	b.mu.Lock()
	b.events = append(b.events, "reset")
	b.mu.Unlock()
}

func (b *backoffLog) log() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.events...)
}

// instant is a clock.after that fires at once and records the wait.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) after(d time.Duration) <-chan time.Time {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	c := make(chan time.Time, 1)
	c <- time.Now()
	return c
}

// harness wires an adapter to a fake and runs Start until the test ends.
type harness struct {
	fake *fakeAPI
	tg   *telegram.Telegram
	sink *recordingSink
	bo   *backoffLog
	done chan error
}

func newHarness(t *testing.T, opts *telegram.Options, start bool) *harness {
	t.Helper()
	f := newFake(t)
	o := telegram.Options{}
	if opts != nil {
		o = *opts
	}
	o.Token = token
	o.APIURL = f.srv.URL
	o.PollTimeout = time.Second
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	tg, err := telegram.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{fake: f, tg: tg, sink: &recordingSink{allow: map[string]bool{"42": true}}, bo: &backoffLog{}, done: make(chan error, 1)}
	tg.SetBackoff(func() telegram.Backoff { return h.bo })
	if start {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { h.done <- tg.Start(ctx, h.sink) }()
		t.Cleanup(func() {
			cancel()
			select {
			case err := <-h.done:
				if err != context.Canceled {
					t.Errorf("Start returned %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Error("Start did not return after cancel")
			}
		})
	}
	return h
}

// msg builds a message update from user 42 (or from) in a private chat.
func msg(fields map[string]any) map[string]any {
	m := map[string]any{
		"message_id": 10,
		"date":       1,
		"from":       map[string]any{"id": 42, "is_bot": false, "first_name": "Al", "username": "alice"},
		"chat":       map[string]any{"id": 42, "type": "private"},
	}
	for k, v := range fields {
		m[k] = v
	}
	return map[string]any{"message": m}
}

// transcriberFunc is a Transcriber from a function of the audio bytes.
type transcriberFunc func([]byte) string

func (f transcriberFunc) Transcribe(_ context.Context, audio io.Reader, _, _ string) (string, error) {
	b, err := io.ReadAll(audio)
	return f(b), err
}
