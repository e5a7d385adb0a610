package gateway

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// photo is the start of a PNG: the model side decides the type from these
// bytes, whatever the platform called the file.
var photo = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1}, 500)...)

func TestGatewayCarriesPhotoFromChannelToModel(t *testing.T) {
	for _, tt := range []struct {
		name  string
		model string
		// path rewrites the spooled attachment's Path as the inbox would
		// deliver it; the gateway must go by the spool id alone.
		path      func(spooled string) string
		wantReply []string
		wantAsked bool
	}{
		{
			name: "vision model sees the photo", model: "gpt-4o",
			path:      func(p string) string { return "/somewhere/else/" + filepath.Base(p) },
			wantReply: []string{"A cat on a mat."}, wantAsked: true,
		},
		{
			name: "text model is refused with the config key", model: "scripted-model",
			path:      func(p string) string { return p },
			wantReply: []string{"custom/scripted-model", "agents.defaults.model", "images"},
		},
		{
			name: "an id outside the spool is not opened", model: "gpt-4o",
			path:      func(string) string { return "/etc/passwd" },
			wantReply: []string{"couldn't load the image"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearProviderEnv(t)
			srv := providertest.NewServer(t)
			if tt.wantAsked {
				srv.Enqueue(providertest.Text("A cat on a mat."))
			}
			cfgPath := gatewayConfig(t, srv, "42")
			cfg, err := config.Load(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Agents.Defaults.Model = tt.model
			if err := config.Save(cfgPath, cfg); err != nil {
				t.Fatal(err)
			}
			att, err := channels.SaveToSpool(gatewaySpoolDir(filepath.Dir(cfgPath)), bytes.NewReader(photo), "image/jpeg", "photo.jpg")
			if err != nil {
				t.Fatal(err)
			}
			spooled := att.Path
			// An orphan of an earlier run, older than a day: the start-up
			// sweep removes it.
			orphan, err := channels.SaveToSpool(gatewaySpoolDir(filepath.Dir(cfgPath)), strings.NewReader("left behind"), "image/png", "old.png")
			if err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-48 * time.Hour)
			if err := os.Chtimes(orphan.Path, old, old); err != nil {
				t.Fatal(err)
			}
			att.Path = tt.path(att.Path)
			voice := channels.Attachment{Path: att.Path, Kind: channels.KindAudio, Name: "voice.ogg"}

			ch, view := newPlain()
			stop := startGateway(t, cfgPath, view)
			ch.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", MessageID: "7", IsDirect: true,
				Text: "what is this?", Attachments: []channels.Attachment{voice, att}})
			got := awaitSent(t, ch, 1)[0]
			logs := stop()
			if _, err := os.Stat(orphan.Path); err == nil {
				t.Error("the start-up sweep left an orphan older than a day in the spool")
			}
			// The photo's spool file is gone once its turn is done (the
			// id outside the spool names nothing there: the photo stays
			// until the sweep).
			_, err = os.Stat(spooled)
			if gone := err != nil; gone != (tt.path(spooled) != "/etc/passwd") {
				t.Errorf("spool file gone = %v after the turn", gone)
			}
			for _, want := range tt.wantReply {
				if !strings.Contains(got, want) {
					t.Errorf("reply %q does not contain %q", got, want)
				}
			}
			if !strings.Contains(logs, "attachment ignored") || !strings.Contains(logs, "kind=audio") {
				t.Errorf("the audio attachment was not logged as ignored:\n%s", logs)
			}
			reqs := srv.Requests()
			if !tt.wantAsked {
				if len(reqs) != 0 {
					t.Fatalf("the provider was asked %d times", len(reqs))
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("the provider was asked %d times, want once", len(reqs))
			}
			want := `"image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(photo) + `"}`
			if !strings.Contains(string(reqs[0].Raw), want) {
				t.Fatalf("the request carries no image_url part with the photo:\n%.500s", reqs[0].Raw)
			}
			store, err := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
			if err != nil {
				t.Fatal(err)
			}
			sess, err := store.Load("telegram:42")
			if err != nil {
				t.Fatal(err)
			}
			if len(sess.Messages) == 0 || len(sess.Messages[0].Attachments) != 1 || sess.Messages[0].Attachments[0].SHA256+".jpg" != att.ID() {
				t.Fatalf("the session does not reference the photo by its hash: %+v", sess.Messages)
			}
		})
	}
}
