package telegram_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/channels"
)

// TestStreamReportsShownAndEditMessageMendsIt: a live reply reports the id
// and text of its message each time it is posted, and EditMessage (what a
// restarted gateway uses on a reply a crash cut off) rewrites that message
// and drops its Stop button.
func TestStreamReportsShownAndEditMessageMendsIt(t *testing.T) {
	h := newHarness(t, nil, false)
	ctx := context.Background()
	s, err := h.tg.StartStream(ctx, "42", &channels.StreamOptions{Cancel: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids, texts []string
	s.(channels.ShownStream).OnShown(func(id, text string) {
		mu.Lock()
		defer mu.Unlock()
		ids, texts = append(ids, id), append(texts, text)
	})
	s.Update("Half an answer")
	waitFor(t, "the live message reported", func() bool { mu.Lock(); defer mu.Unlock(); return len(ids) == 1 })
	mu.Lock()
	id, text := ids[0], texts[0]
	mu.Unlock()
	if id != "1001" || text != "Half an answer" {
		t.Fatalf("shown (%q, %q), want the live message 1001 and its text", id, text)
	}
	// The process dies here; a new one mends the message.
	if err := h.tg.EditMessage(ctx, "42", id, text+"\n\n⚠️ cut off"); err != nil {
		t.Fatal(err)
	}
	edits := h.fake.callsOf("editMessageText")
	last := edits[len(edits)-1]
	if last.Params["message_id"] != "1001" || !strings.Contains(last.Params["text"], "cut off") || strings.Contains(last.Params["reply_markup"], "Stop") {
		t.Fatalf("edit = %+v, want message 1001 marked cut off without its Stop button", last.Params)
	}
	if err := h.tg.EditMessage(ctx, "42", "live-1", "x"); err == nil {
		t.Fatal("a message id that is not Telegram's was accepted")
	}
	s.Finish(ctx, "")
}
