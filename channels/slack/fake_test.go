package slack_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const (
	appToken = "xapp-1-test"
	botToken = "xoxb-test"
	botUser  = "UBOT"
)

// posted is one chat.postMessage the bot made.
type posted struct {
	Channel, Text, Thread string
	LinkNames             any
}

// fakeSlack is a Go fake of Slack's Web API (auth.test,
// apps.connections.open, chat.postMessage) and of the Socket Mode
// websocket: hello, envelopes sent again until acknowledged (with
// retry_attempt counted up), disconnect requests, dropped connections.
type fakeSlack struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	conn     *websocket.Conn
	wmu      sync.Mutex
	nextEnv  int
	pending  map[string]*pendingEnv
	acked    map[string]bool
	opens    int
	posts    []posted
	stopLoop chan struct{}
	loopDone chan struct{}
	// uploads: bytes received per file id, the Authorization header of
	// each upload (must be empty), and files shared into conversations.
	uploaded   map[string]int
	uploadAuth []string
	shared     []sharedFile
	// files are served at /files/<name> to the bot token; anything else
	// gets Slack's sign-in page, as a token without files:read does.
	files     map[string][]byte
	downloads int
}

type sharedFile struct {
	ID, Title, Channel, Thread string
	Bytes                      int
}

type pendingEnv struct {
	seq     int
	body    map[string]any
	sentAt  time.Time
	retries int
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{t: t, pending: map[string]*pendingEnv{}, acked: map[string]bool{}, uploaded: map[string]int{}, files: map[string][]byte{}, stopLoop: make(chan struct{}), loopDone: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	go f.resendLoop()
	t.Cleanup(func() {
		close(f.stopLoop)
		<-f.loopDone
		f.drop()
		f.srv.Close()
	})
	return f
}

var upgrader = websocket.Upgrader{}

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/socket" {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conn = c
		f.mu.Unlock()
		f.write(c, map[string]any{"type": "hello", "num_connections": 1})
		for {
			var ack struct {
				EnvelopeID string `json:"envelope_id"`
			}
			if err := c.ReadJSON(&ack); err != nil {
				f.mu.Lock()
				if f.conn == c {
					f.conn = nil
				}
				f.mu.Unlock()
				return
			}
			f.mu.Lock()
			f.acked[ack.EnvelopeID] = true
			delete(f.pending, ack.EnvelopeID)
			f.mu.Unlock()
		}
	}
	if name, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
		f.mu.Lock()
		f.downloads++
		data, found := f.files[name]
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+botToken || strings.HasPrefix(name, "signin") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!DOCTYPE html><title>Sign in | Slack</title>")
			return
		}
		if !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
		return
	}
	if id, ok := strings.CutPrefix(r.URL.Path, "/upload/"); ok {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.uploaded[id] = len(data)
		f.uploadAuth = append(f.uploadAuth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		return
	}
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	params := map[string]any{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		r.ParseForm()
		for k := range r.PostForm {
			params[k] = r.PostForm.Get(k)
		}
	} else {
		json.NewDecoder(r.Body).Decode(&params)
	}
	w.Header().Set("Content-Type", "application/json")
	switch strings.TrimPrefix(r.URL.Path, "/api/") {
	case "auth.test":
		if auth != botToken {
			fmt.Fprint(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		fmt.Fprintf(w, `{"ok":true,"user_id":%q}`, botUser)
	case "apps.connections.open":
		if auth != appToken {
			fmt.Fprint(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		f.mu.Lock()
		f.opens++
		f.mu.Unlock()
		fmt.Fprintf(w, `{"ok":true,"url":%q}`, "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/socket")
	case "chat.postMessage":
		if auth != botToken {
			fmt.Fprint(w, `{"ok":false,"error":"not_allowed_token_type"}`)
			return
		}
		p := posted{Channel: fmt.Sprint(params["channel"]), Text: html.UnescapeString(fmt.Sprint(params["text"])), LinkNames: params["link_names"]}
		if th, ok := params["thread_ts"].(string); ok {
			p.Thread = th
		}
		f.mu.Lock()
		f.posts = append(f.posts, p)
		f.mu.Unlock()
		fmt.Fprint(w, `{"ok":true,"ts":"1.1"}`)
	case "files.getUploadURLExternal":
		f.mu.Lock()
		f.nextEnv++
		id := fmt.Sprintf("F%d", f.nextEnv)
		f.mu.Unlock()
		fmt.Fprintf(w, `{"ok":true,"upload_url":%q,"file_id":%q}`, f.srv.URL+"/upload/"+id, id)
	case "files.completeUploadExternal":
		var files []struct{ ID, Title string }
		json.Unmarshal([]byte(fmt.Sprint(params["files"])), &files)
		f.mu.Lock()
		for _, fl := range files {
			f.shared = append(f.shared, sharedFile{ID: fl.ID, Title: fl.Title, Channel: fmt.Sprint(params["channel_id"]), Thread: fmt.Sprint(params["thread_ts"]), Bytes: f.uploaded[fl.ID]})
		}
		f.mu.Unlock()
		fmt.Fprint(w, `{"ok":true}`)
	default:
		fmt.Fprint(w, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *fakeSlack) write(c *websocket.Conn, v any) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	c.WriteJSON(v)
}

// resendLoop sends unacknowledged envelopes again, as Slack does.
func (f *fakeSlack) resendLoop() {
	defer close(f.loopDone)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-f.stopLoop:
			return
		case <-tick.C:
		}
		f.mu.Lock()
		c := f.conn
		var due []map[string]any
		ps := make([]*pendingEnv, 0, len(f.pending))
		for _, p := range f.pending {
			ps = append(ps, p)
		}
		// In the order they were queued, as Slack sends them.
		sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
		for _, p := range ps {
			if c != nil && (p.sentAt.IsZero() || time.Since(p.sentAt) > 100*time.Millisecond) {
				if !p.sentAt.IsZero() {
					p.retries++
					p.body["retry_attempt"] = p.retries
				}
				p.sentAt = time.Now()
				due = append(due, p.body)
			}
		}
		f.mu.Unlock()
		for _, b := range due {
			f.write(c, b)
		}
	}
}

// event queues an events_api envelope carrying ev and returns its id.
func (f *fakeSlack) event(ev map[string]any) string {
	return f.envelope("events_api", map[string]any{"type": "event_callback", "event": ev, "event_id": fmt.Sprintf("Ev%d", time.Now().UnixNano())})
}

func (f *fakeSlack) envelope(typ string, payload map[string]any) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextEnv++
	id := fmt.Sprintf("env-%d", f.nextEnv)
	f.pending[id] = &pendingEnv{seq: f.nextEnv, body: map[string]any{"envelope_id": id, "type": typ, "payload": payload, "retry_attempt": 0}}
	return id
}

func (f *fakeSlack) isAcked(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.acked[id]
}

// drop cuts the connection the way a network failure does.
func (f *fakeSlack) drop() {
	f.mu.Lock()
	c := f.conn
	f.conn = nil
	f.mu.Unlock()
	if c != nil {
		c.UnderlyingConn().Close()
	}
}

func (f *fakeSlack) connected() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conn != nil
}

func (f *fakeSlack) postsTo(channel string) []posted {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []posted
	for _, p := range f.posts {
		if p.Channel == channel {
			out = append(out, p)
		}
	}
	return out
}

// msg is a message event; channelType "im" is a DM.
func msg(user, channel, channelType, ts, text string, extra map[string]any) map[string]any {
	m := map[string]any{"type": "message", "user": user, "channel": channel, "channel_type": channelType, "ts": ts, "text": text}
	for k, v := range extra {
		m[k] = v
	}
	return m
}
