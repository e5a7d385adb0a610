package channels_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
)

// TestRouterRemovesSpoolFilesWhenTheirTurnIsDone: an attachment's spool
// file is removed once the last accepted message carrying it has had its
// turn; a message still queued with the same bytes keeps it; a file
// outside the spool is never touched.
func TestRouterRemovesSpoolFilesWhenTheirTurnIsDone(t *testing.T) {
	spool := filepath.Join(t.TempDir(), "spool")
	r := newRouter(t, t.TempDir(), &channels.RouterOptions{SpoolDir: spool})
	att, err := channels.SaveToSpool(spool, strings.NewReader("a picture"), "image/png", "a.png")
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), strings.Repeat("ab", 32)+".png")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	seen := make(chan bool, 4)
	release := make(chan struct{})
	h := func(_ context.Context, inb channels.Inbound) {
		if inb.Text == "first" {
			<-release
		}
		seen <- exists(inb.Attachments[0].Path)
	}
	defer runRouter(t, r, h, nil)()
	with := func(id, text string, a channels.Attachment) channels.Inbound {
		m := dm(id, "42", text)
		m.Attachments = []channels.Attachment{a}
		return m
	}
	// Two messages of one conversation with the same bytes: the second
	// waits in the queue while the first runs.
	if err := r.Deliver(context.Background(), with("1", "first", att)); err != nil {
		t.Fatal(err)
	}
	if err := r.Deliver(context.Background(), with("2", "second", att)); err != nil {
		t.Fatal(err)
	}
	close(release)
	for i, name := range []string{"first", "second"} {
		select {
		case ok := <-seen:
			if !ok {
				t.Fatalf("the %s turn found its spool file gone", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("turn %d did not run", i+1)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for exists(att.Path) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if exists(att.Path) {
		t.Fatal("the spool file outlived the last turn that carried it")
	}

	// A path outside the spool that came with a message stays.
	if err := r.Deliver(context.Background(), with("3", "third", channels.Attachment{Path: outside, Kind: channels.KindImage})); err != nil {
		t.Fatal(err)
	}
	<-seen
	time.Sleep(50 * time.Millisecond)
	if !exists(outside) {
		t.Fatal("a file outside the spool was removed")
	}
}

// TestRouterSweepKeepsQueuedAttachments: the start-up sweep removes spool
// files older than maxAge that no accepted message still needs, and
// keeps an old file a message waiting in the inbox carries.
func TestRouterSweepKeepsQueuedAttachments(t *testing.T) {
	spool := filepath.Join(t.TempDir(), "spool")
	dir := t.TempDir()
	r := newRouter(t, dir, &channels.RouterOptions{SpoolDir: spool})
	kept, err := channels.SaveToSpool(spool, strings.NewReader("waiting"), "image/png", "w.png")
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := channels.SaveToSpool(spool, strings.NewReader("orphan"), "image/png", "o.png")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, p := range []string{kept.Path, orphan.Path} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	m := dm("1", "42", "from before the restart")
	m.Attachments = []channels.Attachment{kept}
	if err := r.Deliver(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// A restart: the message is pending in the inbox, not yet run.
	r2 := newRouter(t, dir, &channels.RouterOptions{SpoolDir: spool})
	n, err := r2.SweepSpool(24*time.Hour, time.Now())
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want the one orphan", n, err)
	}
	if _, err := os.Stat(orphan.Path); err == nil {
		t.Error("the orphan older than a day is still there")
	}
	if _, err := os.Stat(kept.Path); err != nil {
		t.Error("the file a pending message carries was swept")
	}
}
