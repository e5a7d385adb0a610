package channels_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
)

func TestJitterRange(t *testing.T) {
	for i := 0; i < 1000; i++ {
		d := channels.Jitter(time.Second)
		if d < 750*time.Millisecond || d >= 1250*time.Millisecond {
			t.Fatalf("Jitter(1s) = %v, outside [0.75s, 1.25s)", d)
		}
	}
}

func TestBackoffDoublesCapsAndResets(t *testing.T) {
	b := channels.NewBackoff(100*time.Millisecond, time.Second)
	var waits []time.Duration
	b.SetAfter(func(d time.Duration) <-chan time.Time {
		waits = append(waits, d)
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	})
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		if err := b.Sleep(ctx); err != nil {
			t.Fatal(err)
		}
	}
	b.Reset()
	b.Sleep(ctx)
	steps := []time.Duration{100, 200, 400, 800, 1000, 1000, 100}
	for i, base := range steps {
		base *= time.Millisecond
		if waits[i] < base*3/4 || waits[i] >= base*5/4 {
			t.Errorf("wait %d = %v, want %v ±25%%", i, waits[i], base)
		}
	}
}

func TestBackoffSleepEndsWithContext(t *testing.T) {
	b := channels.NewBackoff(time.Hour, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Sleep(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestHostAllowed(t *testing.T) {
	for _, tt := range []struct {
		host string
		ok   bool
	}{
		{"api.botframework.com", true},
		{"botframework.com", true},
		{"BOTFRAMEWORK.COM.", true},
		{"evil-botframework.com", false},
		{"botframework.com.evil.net", false},
		{"", false},
	} {
		if got := channels.HostAllowed(tt.host, ".botframework.com"); got != tt.ok {
			t.Errorf("HostAllowed(%q) = %v, want %v", tt.host, got, tt.ok)
		}
	}
	if channels.HostAllowed("x.com") {
		t.Error("no suffixes must allow nothing")
	}
}

func TestSafeHTTPClientRefusesLoopbackAndRedirects(t *testing.T) {
	hit := false
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer inside.Close()
	c := channels.SafeHTTPClient(5 * time.Second)
	_, err := c.Get(inside.URL)
	if !errors.Is(err, channels.ErrNonPublicAddress) || hit {
		t.Fatalf("loopback fetch: err = %v, reached = %v", err, hit)
	}
	t.Setenv("HTTP_PROXY", inside.URL)
	t.Setenv("HTTPS_PROXY", inside.URL)
	_, err = c.Get("http://localhost.invalid.example/")
	if hit {
		t.Fatal("the client used a configured proxy")
	}
	if err == nil {
		t.Fatal("want an error for an unresolvable host")
	}
}

func TestSpoolIsContentAddressedAndBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	a, err := channels.SaveToSpool(dir, strings.NewReader("hello photo"), "image/png", "cat.PNG")
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != channels.KindImage || !strings.HasSuffix(a.ID(), ".png") || len(a.ID()) != 64+4 {
		t.Fatalf("attachment = %+v (id %s)", a, a.ID())
	}
	b, err := channels.SaveToSpool(dir, strings.NewReader("hello photo"), "", "other name.png")
	if err != nil || b.Path != a.Path {
		t.Fatalf("same bytes stored twice: %v %v", b.Path, err)
	}
	if fi, _ := os.Stat(a.Path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", di.Mode().Perm())
	}
	p, err := channels.ResolveSpoolID(dir, a.ID())
	if err != nil || p != a.Path {
		t.Fatalf("resolve: %v %v", p, err)
	}
	big := bytes.NewReader(make([]byte, channels.MaxAttachmentBytes+1))
	if _, err := channels.SaveToSpool(dir, big, "audio/ogg", "v.ogg"); !errors.Is(err, channels.ErrTooLarge) {
		t.Fatalf("over-limit: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("spool holds %d files after a refused upload, want 1", len(entries))
	}
	odd, err := channels.SaveToSpool(dir, strings.NewReader("x"), "application/pdf", "../../etc/passwd")
	if err != nil || filepath.Dir(odd.Path) != dir || !strings.HasSuffix(odd.Path, ".pdf") {
		t.Fatalf("a hostile name shaped the path: %+v %v", odd, err)
	}
}

func TestResolveSpoolIDRefusesEverythingElse(t *testing.T) {
	dir := t.TempDir()
	hash := strings.Repeat("a", 64)
	os.WriteFile(filepath.Join(dir, hash+".png"), []byte("x"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, strings.Repeat("b", 64)+".txt"))
	for _, id := range []string{
		"../" + hash + ".png", hash + ".png/..", "/etc/passwd", "..", ".", "",
		hash, hash + ".", strings.Repeat("A", 64) + ".png", hash[:63] + ".png",
		hash + ".p/g", strings.Repeat("b", 64) + ".txt", strings.Repeat("c", 64) + ".png",
		hash + ".png\x00",
	} {
		if p, err := channels.ResolveSpoolID(dir, id); err == nil {
			t.Errorf("ResolveSpoolID(%q) = %s, want refusal", id, p)
		}
	}
	if _, err := channels.ResolveSpoolID(dir, hash+".png"); err != nil {
		t.Fatalf("a real id was refused: %v", err)
	}
}

func TestKindForMime(t *testing.T) {
	for _, tt := range []struct{ mime, name, want string }{
		{"image/jpeg", "", channels.KindImage},
		{"audio/ogg; codecs=opus", "", channels.KindAudio},
		{"application/pdf", "", channels.KindPDF},
		{"", "scan.PDF", channels.KindPDF},
		{"application/octet-stream", "voice.oga", channels.KindAudio},
		{"text/plain", "notes.txt", channels.KindFile},
	} {
		if got := channels.KindForMime(tt.mime, tt.name); got != tt.want {
			t.Errorf("KindForMime(%q, %q) = %s, want %s", tt.mime, tt.name, got, tt.want)
		}
	}
}
