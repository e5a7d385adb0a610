package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// chatRequest is the part of an OpenAI chat-completions request joshbot
// reads. Every other field (model, temperature, tools, ...) is accepted and
// ignored: the served model is the agent.
type chatRequest struct {
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	User string `json:"user"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentPart is one element of an array content.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// text returns the message's text: a string content, or the text parts of
// an array content. Other parts are refused rather than silently dropped.
func (m *chatMessage) text() (string, error) {
	c := m.Content
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return "", fmt.Errorf("content is not a valid string: %v", err)
		}
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", errors.New("content must be a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content part type %q is not supported here; send text", p.Type)
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// validUser reports whether u may name a session: 1 to MaxUserLen ASCII
// letters, digits and "._@+-", starting with a letter or digit. The rule is
// checked here, before the value reaches anything that builds a path.
func validUser(u string) bool {
	if len(u) == 0 || len(u) > MaxUserLen {
		return false
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune("._@+-", rune(c))) {
			return false
		}
	}
	return true
}

// chatTurn is a request's turn and what is needed to record where its
// conversation stands once the client has the answer.
type chatTurn struct {
	TurnRequest
	// prior is the client's history before Text, for a derived
	// conversation; derived is false for an explicit user.
	prior   []TranscriptMessage
	derived bool
}

// turnFromRequest checks req and returns the turn to run, or a message
// saying what to fix.
func (s *Server) turnFromRequest(req *chatRequest) (chatTurn, string) {
	if req.User != "" && !validUser(req.User) {
		return chatTurn{}, fmt.Sprintf("user must be 1 to %d letters, digits or ._@+- starting with a letter or digit", MaxUserLen)
	}
	if len(req.Messages) == 0 {
		return chatTurn{}, "messages is empty: send at least one user message"
	}
	// The newest message is the turn. A system message is never
	// forwarded: the agent's own system prompt holds its tool and safety
	// rules, and a client's would compete with them.
	last := &req.Messages[len(req.Messages)-1]
	if last.Role != "user" {
		return chatTurn{}, fmt.Sprintf("the last message has role %q; it must be the user's message", last.Role)
	}
	text, err := last.text()
	if err != nil {
		return chatTurn{}, "messages[" + fmt.Sprint(len(req.Messages)-1) + "]: " + err.Error()
	}
	if strings.TrimSpace(text) == "" {
		return chatTurn{}, "the last user message is empty"
	}
	if req.User != "" {
		// An explicit conversation: joshbot keeps it, so the earlier
		// messages a client resends are already in the session.
		return chatTurn{TurnRequest: TurnRequest{SessionKey: "api:" + req.User, User: req.User, Text: text}}, ""
	}
	// No user: the earlier messages name the conversation. Where they are
	// exactly what an earlier answer left the client with, that
	// conversation continues; otherwise (a new chat, an edit, a
	// regenerate, a conversation forgotten) a new one starts from them.
	prior := clientHistory(req.Messages[:len(req.Messages)-1])
	t := chatTurn{TurnRequest: TurnRequest{Text: text}, prior: prior, derived: true}
	if len(prior) > 0 {
		if key, ok := s.convs.claim(hashTurns(prior)); ok {
			t.SessionKey = key
			return t, ""
		}
	}
	t.SessionKey = newDerivedKey()
	if len(prior) > 0 {
		t.History = prior
	}
	return t, ""
}

// answered records where a derived conversation stands once the client
// has received answer whole.
func (s *Server) answered(t *chatTurn, answer string) {
	if !t.derived {
		return
	}
	turns := make([]TranscriptMessage, 0, len(t.prior)+2)
	turns = append(append(turns, t.prior...),
		TranscriptMessage{Role: "user", Content: t.Text},
		TranscriptMessage{Role: "assistant", Content: answer})
	s.convs.record(t.SessionKey, hashTurns(turns))
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if !readJSON(w, r, &req) {
		return
	}
	turn, problem := s.turnFromRequest(&req)
	if problem != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", problem)
		return
	}
	if req.Stream {
		s.chatStream(w, r, &turn, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	res, err := s.agent.Turn(r.Context(), turn.TurnRequest, nil)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left; nobody reads an answer
		}
		status, msg := s.failure(r, "the agent turn", err)
		writeError(w, status, errorType(status), msg)
		return
	}
	finish := "stop"
	if res.Truncated {
		finish = "length"
	}
	if writeJSON(w, http.StatusOK, map[string]any{
		"id":      newID("chatcmpl-"),
		"object":  "chat.completion",
		"created": s.now().Unix(),
		"model":   ModelID,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": res.Text},
			"finish_reason": finish,
			"logprobs":      nil,
		}},
		"usage": res.Usage,
	}) == nil {
		s.answered(&turn, res.Text)
	}
}

// errorType names an OpenAI error type for status.
func errorType(status int) string {
	switch {
	case status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		return "upstream_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// chatStream runs a streamed turn. Nothing is written until the turn
// produces its first event, so a turn that fails before then is still
// answered with a plain error status.
//
// The turn never waits for the client: its events go through an [outq]
// that a writer goroutine drains, so a client that reads slowly cannot
// hold the turn, and the conversation's lock, open. The queue holds at
// most Options.StreamBuffer bytes; when a turn gets further ahead of its
// client than that, the stream stops queueing and, once the turn has
// ended and its answer is saved, sends the rest of the saved answer in
// pieces, so memory stays bounded and the client still gets the whole
// answer (text the model wrote before a tool call and the progress notes
// are what may be left out then).
func (s *Server) chatStream(w http.ResponseWriter, r *http.Request, turn *chatTurn, includeUsage bool) {
	st := newStream(w, s.now(), includeUsage)
	defer st.done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	q := newOutq(s.streamBuffer)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for {
			f, ok := q.pop()
			if !ok {
				return
			}
			if st.send(f) != nil {
				// The client is gone: stop the turn rather than run
				// tools for nobody. What ran is saved by the agent.
				q.fail()
				cancel()
				return
			}
		}
	}()
	var mu sync.Mutex // the events' state, should they come concurrently
	// sent is the text queued since the last tool progress: the part of
	// the model message being written that the client has, which the
	// final answer begins with when that message is the last.
	sent := newStreamed()
	behind := false // the buffer overflowed: nothing more is queued
	later := false  // and a tool ran since: the answer is a later message
	// shown is the answer's text as the client receives it, for a
	// derived conversation's record.
	var shown strings.Builder
	res, err := s.agent.Turn(ctx, turn.TurnRequest, func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if q.isBroken() || (ev.Progress == nil && ev.Delta == "" && ev.Waiting <= 0) {
			return
		}
		if behind {
			later = later || ev.Progress != nil
			return
		}
		var f []byte
		var ferr error
		roleSent := st.roleSent
		switch {
		case ev.Progress != nil:
			f, ferr = progressFrame(ev.Progress)
		case ev.Waiting > 0 && ev.Delta == "":
			f = waitingFrame(ev.Waiting)
		default:
			f, ferr = st.deltaFrame(ev.Delta)
		}
		if ferr != nil {
			return
		}
		if !q.push(f) {
			behind = true
			later = ev.Progress != nil
			st.roleSent = roleSent
			return
		}
		switch {
		case ev.Progress != nil:
			sent = newStreamed()
		case ev.Delta != "":
			sent.add(ev.Delta)
			if turn.derived {
				shown.WriteString(ev.Delta)
			}
		}
	})
	q.close()
	<-wrote
	s.notePeak(q)
	mu.Lock()
	defer mu.Unlock()
	if q.isBroken() || r.Context().Err() != nil {
		return
	}
	if err != nil {
		status, msg := s.failure(r, "the agent turn", err)
		if !st.started {
			writeError(w, status, errorType(status), msg)
			return
		}
		// Already streaming: the status line is sent, so the failure goes
		// into the stream, and the stream ends without finish_reason
		// "stop" or [DONE] so no client takes it for a whole answer.
		_ = st.fail(status, msg)
		return
	}
	rest := res.Text
	switch {
	case behind && later:
		// The answer is a message the client has seen none of.
		if st.roleSent {
			rest = "\n\n" + rest
		}
	case behind:
		var ok bool
		if rest, ok = sent.rest(res.Text); !ok {
			// Not expected: the stream showed text the answer does not
			// begin with, so the rest cannot be told apart.
			_ = st.fail(http.StatusServiceUnavailable, "the stream was cut: the client read too slowly to keep up, and the answer changed while it was being written; the whole answer is saved in the conversation")
			return
		}
	case st.roleSent:
		rest = "" // every delta reached the client
	}
	for _, p := range pieces(rest) {
		if st.delta(p) != nil {
			return
		}
	}
	finish := "stop"
	if res.Truncated {
		finish = "length"
	}
	if st.finish(finish, res.Usage) == nil {
		shown.WriteString(rest)
		s.answered(turn, shown.String())
	}
}
