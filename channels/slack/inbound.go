package slack

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/channels"
)

// event is the part of a Slack message or app_mention event the adapter
// reads.
type event struct {
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	User        string  `json:"user"`
	BotID       string  `json:"bot_id"`
	Text        string  `json:"text"`
	TS          string  `json:"ts"`
	ThreadTS    string  `json:"thread_ts"`
	Channel     string  `json:"channel"`
	ChannelType string  `json:"channel_type"`
	Blocks      []block `json:"blocks"`
	Files       []file  `json:"files"`
}

// block is a rich-text block, walked for user elements.
type block struct {
	Type     string  `json:"type"`
	UserID   string  `json:"user_id"`
	Elements []block `json:"elements"`
}

// mentionsUser reports whether a user element naming id appears anywhere
// in blocks.
func mentionsUser(blocks []block, id string) bool {
	for _, b := range blocks {
		if b.Type == "user" && b.UserID == id {
			return true
		}
		if mentionsUser(b.Elements, id) {
			return true
		}
	}
	return false
}

// handle turns one envelope into a delivery. An error leaves the envelope
// unacknowledged.
func (s *Slack) handle(ctx context.Context, sink channels.Sink, env envelope) error {
	if env.Type == "slash_commands" {
		var c struct {
			Command   string `json:"command"`
			Text      string `json:"text"`
			UserID    string `json:"user_id"`
			ChannelID string `json:"channel_id"`
			TriggerID string `json:"trigger_id"`
		}
		if err := json.Unmarshal(env.Payload, &c); err != nil || c.Command == "" {
			return nil // malformed: acknowledged and dropped, never retried forever
		}
		text := strings.TrimSpace(c.Command + " " + c.Text)
		return sink.Deliver(ctx, channels.Inbound{
			Channel: Name, Conversation: c.ChannelID, Principal: c.UserID, Text: text,
			MessageID: "cmd:" + c.TriggerID, IsDirect: strings.HasPrefix(c.ChannelID, "D"), Mentioned: true,
		})
	}
	var p struct {
		Event event `json:"event"`
	}
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return nil
	}
	e := p.Event
	if e.Type != "message" && e.Type != "app_mention" {
		return nil
	}
	s.mu.Lock()
	bot := s.botID
	s.mu.Unlock()
	// Edits, deletions, joins and bot posts never trigger; a file share
	// or a thread broadcast is still a user's message.
	if e.Subtype != "" && e.Subtype != "file_share" && e.Subtype != "thread_broadcast" || e.BotID != "" || e.User == "" || e.User == bot {
		return nil
	}
	direct := e.ChannelType == "im"
	conv := e.Channel
	mentioned := e.Type == "app_mention" || bot != "" && (mentionsUser(e.Blocks, bot) || strings.Contains(e.Text, "<@"+bot+">"))
	switch {
	case e.ThreadTS != "":
		conv = e.Channel + ":" + e.ThreadTS
		mentioned = mentioned || s.inThread(conv)
	case !direct:
		// A channel message that reaches the bot starts a thread under it.
		conv = e.Channel + ":" + e.TS
	}
	text := e.Text
	if bot != "" {
		text = strings.TrimSpace(strings.ReplaceAll(text, "<@"+bot+">", ""))
	}
	inb := channels.Inbound{
		Channel:      Name,
		Conversation: conv,
		Principal:    e.User,
		Text:         text,
		MessageID:    e.Channel + ":" + e.TS,
		IsDirect:     direct,
		Mentioned:    mentioned,
	}
	// A channel message that mentions the bot comes twice, as a message
	// and as an app_mention event, with one MessageID: the router runs it
	// once, and the twin is not fetched or explained again here.
	if s.recent.has(inb.MessageID) {
		return nil
	}
	if len(e.Files) > 0 {
		if err := s.attach(ctx, sink, &inb, e.Files); err != nil {
			return err
		}
		if inb.Text == "" && len(inb.Attachments) == 0 {
			return nil
		}
		if inb.Text == "" {
			inb.Text = "[The user sent a file.]"
		}
	}
	if err := sink.Deliver(ctx, inb); err != nil {
		return err
	}
	if inb.IsDirect || inb.Mentioned {
		// Its twin adds nothing. An unaddressed message is not recorded
		// by the router, so its app_mention twin must still go through.
		s.recent.add(inb.MessageID)
	}
	return nil
}

// recentIDs remembers the last message ids handed over, in a ring.
type recentIDs struct {
	mu   sync.Mutex
	set  map[string]struct{}
	ring [256]string
	next int
}

func (r *recentIDs) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.set[id]
	return ok
}

func (r *recentIDs) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set == nil {
		r.set = map[string]struct{}{}
	}
	if _, ok := r.set[id]; ok {
		return
	}
	delete(r.set, r.ring[r.next])
	r.ring[r.next] = id
	r.next = (r.next + 1) % len(r.ring)
	r.set[id] = struct{}{}
}

// inThread reports whether the bot answered in thread conversation conv.
func (s *Slack) inThread(conv string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.threads[conv]
	return ok
}

// answered remembers that the bot posted into thread conversation conv,
// so follow-ups there count as addressed. The memory is bounded: the
// oldest half is forgotten when it is full.
func (s *Slack) answered(conv string) {
	if !strings.Contains(conv, ":") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.threads[conv] = time.Now()
	if len(s.threads) <= maxThreads {
		return
	}
	var oldest time.Time
	for _, t := range s.threads {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	cut := oldest.Add(time.Since(oldest) / 2)
	for k, t := range s.threads {
		if t.Before(cut) {
			delete(s.threads, k)
		}
	}
}

// splitConversation returns the channel id and thread ts of conv.
func splitConversation(conv string) (channel, thread string, err error) {
	channel, thread, _ = strings.Cut(conv, ":")
	if channel == "" {
		return "", "", errorf("slack: conversation %q has no channel id", conv)
	}
	return channel, thread, nil
}
