package discord_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// The fake Discord: one httptest server (REST, CDN and gateway websocket)
// that discordgo's endpoint variables point at for the whole test binary.
// Requests are routed to a per-test fakeDiscord by the bot token, so tests
// stay independent.
var (
	server  *httptest.Server
	fakesMu sync.Mutex
	fakes   = map[string]*fakeDiscord{}
)

const (
	botID = "900000000000000001"
	appID = "900000000000000002"
)

func startServer() {
	server = httptest.NewServer(http.HandlerFunc(route))
	base := server.URL + "/"
	discordgo.EndpointDiscord = base
	discordgo.EndpointAPI = base + "api/v" + discordgo.APIVersion + "/"
	discordgo.EndpointGuilds = discordgo.EndpointAPI + "guilds/"
	discordgo.EndpointChannels = discordgo.EndpointAPI + "channels/"
	discordgo.EndpointUsers = discordgo.EndpointAPI + "users/"
	discordgo.EndpointGateway = discordgo.EndpointAPI + "gateway"
	discordgo.EndpointGatewayBot = discordgo.EndpointGateway + "/bot"
	discordgo.EndpointWebhooks = discordgo.EndpointAPI + "webhooks/"
	discordgo.EndpointApplications = discordgo.EndpointAPI + "applications"
}

func route(w http.ResponseWriter, r *http.Request) {
	var tok string
	switch {
	case strings.HasPrefix(r.URL.Path, "/ws/"):
		tok = strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/ws/"), "/")
	case strings.HasPrefix(r.URL.Path, "/cdn/"):
		tok, _, _ = strings.Cut(strings.TrimPrefix(r.URL.Path, "/cdn/"), "/")
	default:
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bot ")
	}
	fakesMu.Lock()
	f := fakes[tok]
	fakesMu.Unlock()
	if f == nil {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message": "401: Unauthorized", "code": 0}`)
		return
	}
	f.serve(w, r)
}

// sentMessage is one message the bot posted.
type sentMessage struct {
	Channel   string
	Content   string
	Reference string
	Mentions  *discordgo.MessageAllowedMentions
	Files     map[string]int // name -> bytes
}

type fakeDiscord struct {
	t     *testing.T
	token string

	mu         sync.Mutex
	conn       *websocket.Conn
	wmu        *sync.Mutex
	seq        int64
	log        []frame // every dispatch, for RESUME replays
	session    string
	identifies int
	resumes    []int64 // the sequence each RESUME asked from
	heartbeats int
	sent       []sentMessage
	typing     map[string]int
	commands   []*discordgo.ApplicationCommand
	responses  []discordgo.InteractionResponse
	files      map[string][]byte // CDN path -> bytes
	downloads  int
	nextID     int
	failSends  int // the next n message posts answer 500
	connected  chan struct{}
	// history is each channel's messages in the order sent, for the
	// history endpoint; closed channels answer it 403.
	history   map[string][]map[string]any
	closed    map[string]bool
	histReads []string // "channel after=id" per history request
}

type frame struct {
	Op   int    `json:"op"`
	Seq  int64  `json:"s,omitempty"`
	Type string `json:"t,omitempty"`
	Data any    `json:"d"`
}

var tokenSeq struct {
	sync.Mutex
	n int
}

func newFakeDiscord(t *testing.T) *fakeDiscord {
	tokenSeq.Lock()
	tokenSeq.n++
	tok := fmt.Sprintf("tok%d.%s", tokenSeq.n, strings.ReplaceAll(t.Name(), "/", "_"))
	tokenSeq.Unlock()
	f := &fakeDiscord{t: t, token: tok, typing: map[string]int{}, files: map[string][]byte{}, nextID: 1000, connected: make(chan struct{}, 16),
		history: map[string][]map[string]any{}, closed: map[string]bool{}}
	fakesMu.Lock()
	fakes[tok] = f
	fakesMu.Unlock()
	t.Cleanup(func() {
		fakesMu.Lock()
		delete(fakes, tok)
		fakesMu.Unlock()
		f.drop()
	})
	return f
}

func (f *fakeDiscord) serve(w http.ResponseWriter, r *http.Request) {
	api := "/api/v" + discordgo.APIVersion + "/"
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/ws/"):
		f.gateway(w, r)
	case strings.HasPrefix(p, "/cdn/"):
		f.mu.Lock()
		data, ok := f.files[p]
		f.downloads++
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	case p == api+"gateway":
		wsURL := "ws" + strings.TrimPrefix(server.URL, "http") + "/ws/" + f.token
		json.NewEncoder(w).Encode(map[string]string{"url": wsURL})
	case strings.HasPrefix(p, api+"channels/") && strings.HasSuffix(p, "/typing"):
		ch := strings.TrimSuffix(strings.TrimPrefix(p, api+"channels/"), "/typing")
		f.mu.Lock()
		f.typing[ch]++
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(p, api+"channels/") && strings.HasSuffix(p, "/messages") && r.Method == http.MethodGet:
		f.readHistory(w, r, strings.TrimSuffix(strings.TrimPrefix(p, api+"channels/"), "/messages"))
	case strings.HasPrefix(p, api+"channels/") && strings.HasSuffix(p, "/messages") && r.Method == http.MethodPost:
		f.postMessage(w, r, strings.TrimSuffix(strings.TrimPrefix(p, api+"channels/"), "/messages"))
	case p == api+"applications/"+appID+"/commands" && r.Method == http.MethodPut:
		var cmds []*discordgo.ApplicationCommand
		json.NewDecoder(r.Body).Decode(&cmds)
		f.mu.Lock()
		f.commands = cmds
		f.mu.Unlock()
		json.NewEncoder(w).Encode(cmds)
	case strings.HasPrefix(p, api+"interactions/") && strings.HasSuffix(p, "/callback"):
		var resp discordgo.InteractionResponse
		json.NewDecoder(r.Body).Decode(&resp)
		f.mu.Lock()
		f.responses = append(f.responses, resp)
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		f.t.Errorf("fake discord: unexpected %s %s", r.Method, p)
		http.NotFound(w, r)
	}
}

func (f *fakeDiscord) postMessage(w http.ResponseWriter, r *http.Request, channel string) {
	var body discordgo.MessageSend
	files := map[string]int{}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(part)
			if part.FormName() == "payload_json" {
				json.Unmarshal(data, &body)
			} else {
				files[part.FileName()] = len(data)
			}
		}
	} else {
		json.NewDecoder(r.Body).Decode(&body)
	}
	f.mu.Lock()
	if f.failSends > 0 {
		f.failSends--
		f.mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	m := sentMessage{Channel: channel, Content: body.Content, Mentions: body.AllowedMentions, Files: files}
	if body.Reference != nil {
		m.Reference = body.Reference.MessageID
	}
	f.sent = append(f.sent, m)
	f.nextID++
	id := f.nextID
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprint(id), "channel_id": channel, "content": body.Content,
		"author": map[string]any{"id": botID, "username": "joshbot", "bot": true}})
}

// readHistory answers GET /channels/{id}/messages?after=&limit= as Discord
// does: the oldest messages after the id, listed newest first, and without
// guild_id, which only gateway events carry.
func (f *fakeDiscord) readHistory(w http.ResponseWriter, r *http.Request, channel string) {
	after := r.URL.Query().Get("after")
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 || limit > 100 {
		limit = 50
	}
	f.mu.Lock()
	f.histReads = append(f.histReads, channel+" after="+after)
	if f.closed[channel] {
		f.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"message": "Missing Access", "code": 50001}`)
		return
	}
	var out []map[string]any
	for _, m := range f.history[channel] {
		id := m["id"].(string)
		if after == "" || len(id) > len(after) || len(id) == len(after) && id > after {
			c := map[string]any{}
			for k, v := range m {
				if k != "guild_id" {
					c[k] = v
				}
			}
			out = append(out, c)
		}
		if len(out) == limit {
			break
		}
	}
	f.mu.Unlock()
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if out == nil {
		out = []map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// offline records a message sent while the bot has no gateway session:
// it is in the channel's history, and no event carries it.
func (f *fakeDiscord) offline(m map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := m["channel_id"].(string)
	f.history[ch] = append(f.history[ch], m)
}

var upgrader = websocket.Upgrader{}

// gateway speaks the gateway protocol: HELLO, then IDENTIFY (READY) or
// RESUME (the missed dispatches, then RESUMED), heartbeats answered.
func (f *fakeDiscord) gateway(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	wmu := &sync.Mutex{}
	write := func(fr frame) error {
		wmu.Lock()
		defer wmu.Unlock()
		return c.WriteJSON(fr)
	}
	defer c.Close()
	if write(frame{Op: 10, Data: map[string]any{"heartbeat_interval": 45000}}) != nil {
		return
	}
	for {
		var in struct {
			Op   int             `json:"op"`
			Data json.RawMessage `json:"d"`
		}
		if err := c.ReadJSON(&in); err != nil {
			f.mu.Lock()
			if f.conn == c {
				f.conn = nil
			}
			f.mu.Unlock()
			return
		}
		switch in.Op {
		case 1:
			f.mu.Lock()
			f.heartbeats++
			f.mu.Unlock()
			write(frame{Op: 11})
		case 2:
			f.mu.Lock()
			f.identifies++
			f.session = fmt.Sprintf("session-%d", f.identifies)
			f.seq++
			ready := frame{Op: 0, Seq: f.seq, Type: "READY", Data: map[string]any{
				"v": 9, "session_id": f.session,
				"user":        map[string]any{"id": botID, "username": "joshbot", "bot": true},
				"application": map[string]any{"id": appID},
			}}
			f.log = append(f.log, ready)
			f.conn, f.wmu = c, wmu
			write(ready)
			f.mu.Unlock()
			f.connected <- struct{}{}
		case 6:
			var res struct {
				Token     string `json:"token"`
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			json.Unmarshal(in.Data, &res)
			f.mu.Lock()
			if res.SessionID != f.session || strings.TrimPrefix(res.Token, "Bot ") != f.token {
				f.mu.Unlock()
				write(frame{Op: 9, Data: false})
				continue
			}
			f.resumes = append(f.resumes, res.Seq)
			f.seq++
			resumed := frame{Op: 0, Seq: f.seq, Type: "RESUMED", Data: map[string]any{}}
			// The missed dispatches in order, then RESUMED, as Discord does.
			for _, fr := range f.log {
				if fr.Seq > res.Seq && fr.Type != "READY" && fr.Type != "RESUMED" {
					write(fr)
				}
			}
			write(resumed)
			f.log = append(f.log, resumed)
			f.conn, f.wmu = c, wmu
			f.mu.Unlock()
			f.connected <- struct{}{}
		}
	}
}

// dispatch sends an event to the bot, or keeps it for the RESUME replay
// when no connection is up.
func (f *fakeDiscord) dispatch(typ string, data any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	fr := frame{Op: 0, Seq: f.seq, Type: typ, Data: data}
	f.log = append(f.log, fr)
	if m, ok := data.(map[string]any); ok && typ == "MESSAGE_CREATE" {
		ch, _ := m["channel_id"].(string)
		f.history[ch] = append(f.history[ch], m)
	}
	if f.conn != nil {
		f.wmu.Lock()
		f.conn.WriteJSON(fr)
		f.wmu.Unlock()
	}
}

// drop cuts the connection without a close frame, the way a network
// failure does.
func (f *fakeDiscord) drop() {
	f.mu.Lock()
	c := f.conn
	f.conn = nil
	f.mu.Unlock()
	if c != nil {
		c.UnderlyingConn().Close()
	}
}

// waitSession waits until the adapter has identified once.
func (f *fakeDiscord) waitSession(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.mu.Lock()
		ok := f.identifies > 0
		f.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the adapter never identified to the fake gateway")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitConnected waits for the next READY or RESUMED.
func (f *fakeDiscord) waitConnected(t *testing.T) {
	t.Helper()
	select {
	case <-f.connected:
	case <-time.After(10 * time.Second):
		t.Fatal("the adapter did not connect to the fake gateway")
	}
}

func (f *fakeDiscord) sentTo(channel string) []sentMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sentMessage
	for _, m := range f.sent {
		if m.Channel == channel {
			out = append(out, m)
		}
	}
	return out
}

// user is a Discord user object.
func user(id, name string) map[string]any {
	return map[string]any{"id": id, "username": name}
}

// message is a MESSAGE_CREATE payload; guild "" is a DM.
func message(id, channel, guild string, author map[string]any, content string, extra map[string]any) map[string]any {
	m := map[string]any{"id": id, "channel_id": channel, "content": content, "author": author, "mentions": []any{}, "attachments": []any{}}
	if guild != "" {
		m["guild_id"] = guild
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}
