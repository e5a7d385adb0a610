package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/tools"
)

type keepOutbox struct{ got []bus.Outbound }

func (k *keepOutbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	k.got = append(k.got, m)
	return nil
}

// TestSendFileHonoursTheTelegramServerLimit: with channels.telegram.api_url
// set, send_file to a Telegram chat takes an 11 MiB file (the transport's
// 50 MiB rule), and its cap is the very number the adapter itself uses.
func TestSendFileHonoursTheTelegramServerLimit(t *testing.T) {
	const api = "http://127.0.0.1:8081"
	c := config.Defaults()
	c.Channels.Telegram.APIURL = api
	ws := t.TempDir()
	big := make([]byte, 11<<20)
	if err := os.WriteFile(filepath.Join(ws, "big.bin"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	out := &keepOutbox{}
	if err := tools.RegisterMessaging(reg, out, ws, messagingOptions(c)); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"path": "big.bin", "caption": "the log"})
	send := func(channel string) error {
		ctx := tools.WithRecipient(context.Background(), tools.Recipient{Channel: channel, ChatID: "42"})
		_, err := reg.Execute(ctx, "send_file", args)
		return err
	}
	if err := send("telegram"); err != nil {
		t.Fatalf("11 MiB to telegram through a local Bot API server: %v", err)
	}
	if len(out.got) != 1 || len(out.got[0].Attachments) != 1 || len(out.got[0].Attachments[0].Data) != 11<<20 {
		t.Fatalf("delivered: %d messages", len(out.got))
	}
	// Other channels keep the default cap.
	if err := send("discord"); err == nil {
		t.Fatal("11 MiB to discord was not refused")
	}
	// One rule: the adapter's own limit is the one send_file applies.
	tg, err := telegram.New(&telegram.Options{Token: "1:x", APIURL: api})
	if err != nil {
		t.Fatal(err)
	}
	if got := messagingOptions(c).MaxFileBytesFor("telegram"); got != tg.Limits().File || got != channels.TelegramAttachmentLimitsFor(api).File {
		t.Fatalf("send_file cap %d, adapter cap %d", got, tg.Limits().File)
	}
	// Without a local server, the public 10 MiB rule holds for both.
	if got := messagingOptions(config.Defaults()).MaxFileBytesFor("telegram"); got != 10<<20 {
		t.Fatalf("public Bot API cap %d", got)
	}
}
