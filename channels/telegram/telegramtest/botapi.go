package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BotAPI is a small Go fake of the Telegram Bot API with the one property
// the npm emulator lacks: real offset semantics. An update stays queued
// until a later getUpdates asks for an offset past its update_id, exactly
// as Telegram confirms updates, so a bot killed after it read an update
// but before it asked for the next ones is handed the update again. A test
// that kills a bot mid-poll therefore sees what real Telegram would
// redeliver.
//
// It serves the methods a bot needs for text conversations: getMe,
// getUpdates (long polling with timeout, offset and limit), sendMessage,
// editMessageText, editMessageReplyMarkup, deleteMessage, sendChatAction,
// setMyCommands, deleteMyCommands, answerCallbackQuery, setMessageReaction,
// sendMessageDraft, and the uploads sendDocument, sendPhoto and sendVoice.
// Any other method is answered 404 "method not found", as Telegram does.
// Every bot call is recorded (see [BotAPI.Calls]), with its chat and text.
//
// Its methods are safe for concurrent use. It is not tied to a test: a
// process-level test may run it for as long as several bot processes live.
type BotAPI struct {
	// URL is the Bot API root to give the bot (channels.telegram.api_url or
	// Options.APIURL).
	URL string
	// Token is the token the bot must use; requests under another are
	// answered 401.
	Token string

	srv *httptest.Server

	mu       sync.Mutex
	queue    []update // unconfirmed updates, by update_id
	nextUpd  int64
	nextMsg  int
	calls    []Call
	messages map[msgKey]string // what each bot message shows now
	wake     chan struct{}     // closed and replaced when an update is queued
	closed   bool
	served   map[int64]int // how many times each update was handed out
	again    int           // hand-outs of an update already handed out
	handed   int           // hand-outs of any update
	hold     func(Call) bool
	released chan struct{}
	held     int
}

type update struct {
	id   int64
	body map[string]any
}

type msgKey struct {
	chat int64
	id   int
}

// Call is one Bot API request the bot made.
type Call struct {
	// Method is the Bot API method, such as "sendMessage".
	Method string
	// ChatID is the chat_id parameter, or 0 when the method has none.
	ChatID int64
	// Text is the text (or, for an upload, the caption) parameter.
	Text string
	// MessageID is the message the call created (sendMessage and the
	// uploads) or acted on (editMessageText, deleteMessage); 0 otherwise.
	MessageID int
	// Params holds every parameter as text; JSON values that are not
	// strings keep their JSON form ("reply_markup", "reply_parameters").
	Params map[string]string
	// Files maps each uploaded multipart field to its file name and bytes.
	Files map[string]File
	// At is when the fake received the call.
	At time.Time
}

// File is one uploaded file.
type File struct {
	// Name is the file name the bot gave the upload.
	Name string
	// Data is the uploaded bytes.
	Data []byte
}

// NewBotAPI starts a fake Bot API on a loopback port for token (empty
// means [Token]). Close stops it.
func NewBotAPI(token string) *BotAPI {
	if token == "" {
		token = Token
	}
	b := &BotAPI{Token: token, nextUpd: 1, nextMsg: 1, messages: map[msgKey]string{}, wake: make(chan struct{}), served: map[int64]int{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	b.URL = b.srv.URL
	return b
}

// Close ends every long poll in progress and stops the server.
func (b *BotAPI) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.wake)
	}
	if b.released != nil {
		close(b.released)
		b.hold, b.released = nil, nil
	}
	b.mu.Unlock()
	b.srv.CloseClientConnections()
	b.srv.Close()
}

// UserSends queues a text message from user in their private chat (whose
// chat id is the user id) and returns its update_id and message_id.
func (b *BotAPI) UserSends(user int64, text string) (updateID int64, messageID int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	messageID = b.nextMsg
	b.nextMsg++
	msg := map[string]any{
		"message_id": messageID,
		"date":       time.Now().Unix(),
		"text":       text,
		"from":       map[string]any{"id": user, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", user)},
		"chat":       map[string]any{"id": user, "type": "private", "first_name": "U"},
	}
	return b.pushLocked(map[string]any{"message": msg}), messageID
}

// UserPresses queues a callback query: user pressed the button carrying
// data under the bot's message messageID in user's private chat. It
// returns the update_id.
func (b *BotAPI) UserPresses(user int64, messageID int, data string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	from := map[string]any{"id": user, "is_bot": false, "first_name": "U", "username": fmt.Sprintf("user%d", user)}
	cb := map[string]any{
		"id":            fmt.Sprintf("cb%d", b.nextUpd),
		"from":          from,
		"chat_instance": "1",
		"data":          data,
		"message": map[string]any{
			"message_id": messageID, "date": time.Now().Unix(),
			"chat": map[string]any{"id": user, "type": "private"},
			"text": b.messages[msgKey{user, messageID}],
		},
	}
	return b.pushLocked(map[string]any{"callback_query": cb})
}

func (b *BotAPI) pushLocked(body map[string]any) int64 {
	id := b.nextUpd
	b.nextUpd++
	body["update_id"] = id
	b.queue = append(b.queue, update{id: id, body: body})
	if !b.closed {
		close(b.wake)
		b.wake = make(chan struct{})
	}
	return id
}

// Pending returns how many updates the bot has not confirmed yet.
func (b *BotAPI) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// Redelivered returns how many times an update was handed out again
// because no getUpdates had confirmed it: what a crash between reading
// updates and confirming them costs, and what a bot must deduplicate.
func (b *BotAPI) Redelivered() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.again
}

// HandedOut returns how many updates getUpdates has handed out in all,
// counting each hand-out of a redelivered update. A crash test watches it
// to kill a bot right after it read updates, before it confirmed them.
func (b *BotAPI) HandedOut() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.handed
}

// Hold makes the fake hold every later call for which match reports true,
// as a network that has not delivered it yet: the call is neither
// recorded nor answered until [BotAPI.Release]; a bot that dies meanwhile
// never made it. A nil match holds nothing.
func (b *BotAPI) Hold(match func(Call) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hold = match
	b.released = make(chan struct{})
}

// Release lets the held calls through and stops holding.
func (b *BotAPI) Release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released != nil {
		close(b.released)
	}
	b.hold, b.released = nil, nil
}

// Held returns how many calls have been held so far.
func (b *BotAPI) Held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// wait holds c while Hold says so, and reports whether it may proceed.
func (b *BotAPI) wait(r *http.Request, c Call) bool {
	b.mu.Lock()
	match, released, closed := b.hold, b.released, b.closed
	if match == nil || closed || !match(c) {
		b.mu.Unlock()
		return true
	}
	b.held++
	b.mu.Unlock()
	select {
	case <-released:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Calls returns every call the bot made, in the order they arrived.
// Methods, when given, keep only the calls of those methods.
func (b *BotAPI) Calls(methods ...string) []Call {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Call
	for _, c := range b.calls {
		if len(methods) == 0 || contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

// Sent returns the calls that put something new into chat (sendMessage
// and the uploads), in order.
func (b *BotAPI) Sent(chat int64) []Call {
	var out []Call
	for _, c := range b.Calls("sendMessage", "sendDocument", "sendPhoto", "sendVoice") {
		if c.ChatID == chat {
			out = append(out, c)
		}
	}
	return out
}

// Message returns what the bot's message id in chat shows now (its last
// edit), and whether it exists.
func (b *BotAPI) Message(chat int64, id int) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.messages[msgKey{chat, id}]
	return s, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (b *BotAPI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+b.Token+"/")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	c, err := readCall(r)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"ok":false,"error_code":400,"description":%q}`, "Bad Request: "+err.Error())
		return
	}
	c.Method = method
	if !b.wait(r, c) {
		return // the client went away while the call was held: never arrived
	}
	if method == "getUpdates" {
		b.getUpdates(w, r, c)
		return
	}
	var result any = true
	b.mu.Lock()
	switch method {
	case "getMe":
		result = map[string]any{"id": 777, "is_bot": true, "first_name": "Josh", "username": "JoshTestBot"}
	case "sendMessage", "sendDocument", "sendPhoto", "sendVoice":
		c.MessageID = b.nextMsg
		b.nextMsg++
		b.messages[msgKey{c.ChatID, c.MessageID}] = c.Text
		msg := map[string]any{
			"message_id": c.MessageID, "date": time.Now().Unix(), "text": c.Text,
			"chat": map[string]any{"id": c.ChatID, "type": chatType(c.ChatID)},
			"from": map[string]any{"id": 777, "is_bot": true, "first_name": "Josh", "username": "JoshTestBot"},
		}
		switch method {
		case "sendDocument":
			name := "document"
			if f, ok := c.Files["document"]; ok {
				name = f.Name
			}
			msg["document"] = map[string]any{"file_id": "doc", "file_unique_id": "doc", "file_name": name}
			msg["caption"] = c.Text
			delete(msg, "text")
		case "sendPhoto":
			msg["photo"] = []map[string]any{{"file_id": "photo", "file_unique_id": "photo", "width": 1, "height": 1}}
		case "sendVoice":
			msg["voice"] = map[string]any{"file_id": "voice", "file_unique_id": "voice", "duration": 1}
		}
		result = msg
	case "editMessageText":
		c.MessageID, _ = strconv.Atoi(c.Params["message_id"])
		k := msgKey{c.ChatID, c.MessageID}
		old, ok := b.messages[k]
		switch {
		case !ok:
			b.calls = append(b.calls, c)
			b.mu.Unlock()
			fail(w, 400, "Bad Request: message to edit not found")
			return
		case old == c.Text && c.Params["reply_markup"] == "":
			b.calls = append(b.calls, c)
			b.mu.Unlock()
			fail(w, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
			return
		}
		b.messages[k] = c.Text
		result = map[string]any{
			"message_id": c.MessageID, "date": time.Now().Unix(), "text": c.Text,
			"chat": map[string]any{"id": c.ChatID, "type": chatType(c.ChatID)},
		}
	case "deleteMessage":
		c.MessageID, _ = strconv.Atoi(c.Params["message_id"])
		delete(b.messages, msgKey{c.ChatID, c.MessageID})
	case "editMessageReplyMarkup", "sendChatAction", "setMyCommands", "deleteMyCommands",
		"answerCallbackQuery", "setMessageReaction", "sendMessageDraft", "deleteWebhook":
	default:
		b.calls = append(b.calls, c)
		b.mu.Unlock()
		fail(w, 404, "Not Found: method not found")
		return
	}
	b.calls = append(b.calls, c)
	b.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

// getUpdates confirms every update below offset, then answers with the
// updates at or past it, waiting up to timeout seconds for the first one.
func (b *BotAPI) getUpdates(w http.ResponseWriter, r *http.Request, c Call) {
	offset, _ := strconv.ParseInt(c.Params["offset"], 10, 64)
	timeout, _ := strconv.Atoi(c.Params["timeout"])
	limit, _ := strconv.Atoi(c.Params["limit"])
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	b.mu.Lock()
	b.calls = append(b.calls, c)
	if offset > 0 {
		i := 0
		for i < len(b.queue) && b.queue[i].id < offset {
			i++
		}
		b.queue = b.queue[i:]
	}
	for {
		var out []map[string]any
		for _, u := range b.queue {
			if u.id >= offset && len(out) < limit {
				out = append(out, u.body)
			}
		}
		if len(out) > 0 || timeout <= 0 || b.closed {
			b.handed += len(out)
			for _, u := range out {
				id := u["update_id"].(int64)
				if b.served[id]++; b.served[id] > 1 {
					b.again++
				}
			}
			b.mu.Unlock()
			if out == nil {
				out = []map[string]any{}
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": out})
			return
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			timeout = 0
		case <-r.Context().Done():
			return
		}
		b.mu.Lock()
	}
}

func fail(w http.ResponseWriter, code int, desc string) {
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": code, "description": desc})
}

func chatType(chat int64) string {
	if chat < 0 {
		return "supergroup"
	}
	return "private"
}

// readCall reads a request's parameters, from a JSON body, a form or a
// multipart upload, and its chat and text.
func readCall(r *http.Request) (Call, error) {
	c := Call{Params: map[string]string{}, Files: map[string]File{}, At: time.Now()}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "multipart/"):
		mr, err := r.MultipartReader()
		if err != nil {
			return c, err
		}
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return c, err
			}
			data, err := io.ReadAll(p)
			if err != nil {
				return c, err
			}
			if p.FileName() != "" || p.Header.Get("Content-Type") == "application/octet-stream" {
				c.Files[p.FormName()] = File{Name: p.FileName(), Data: data}
			} else {
				c.Params[p.FormName()] = string(data)
			}
		}
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		if err := r.ParseForm(); err != nil {
			return c, err
		}
		for k := range r.PostForm {
			c.Params[k] = r.PostForm.Get(k)
		}
	default:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return c, err
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				return c, fmt.Errorf("body is not a JSON object: %v", err)
			}
			for k, v := range m {
				var s string
				if json.Unmarshal(v, &s) == nil {
					c.Params[k] = s
				} else {
					c.Params[k] = string(v)
				}
			}
		}
	}
	for k, v := range r.URL.Query() {
		if _, ok := c.Params[k]; !ok && len(v) > 0 {
			c.Params[k] = v[0]
		}
	}
	c.ChatID, _ = strconv.ParseInt(c.Params["chat_id"], 10, 64)
	c.Text = c.Params["text"]
	if c.Text == "" {
		c.Text = c.Params["caption"]
	}
	return c, nil
}
