package telegram_test

import (
	"context"
	"testing"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
)

// TestLocalBotAPIServerTakesAnElevenMiBFile: through a self-hosted Bot
// API server (Options.APIURL, here the BotAPI fake) an 11 MiB file is
// uploaded whole, with its caption, under the 50 MiB rule that send_file
// also reads.
func TestLocalBotAPIServerTakesAnElevenMiBFile(t *testing.T) {
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	tg, err := telegram.New(&telegram.Options{Token: telegramtest.Token, APIURL: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.Limits().File; got != 50<<20 || got != channels.TelegramAttachmentLimitsFor(api.URL).File {
		t.Fatalf("file cap %d, want the 50 MiB local-server rule", got)
	}
	data := make([]byte, 11<<20)
	data[0] = 'x'
	if err := tg.Send(context.Background(), "42", channels.Outbound{Text: "the dump", Files: []bus.Attachment{{Name: "dump.bin", Data: data}}}); err != nil {
		t.Fatal(err)
	}
	docs := api.Calls("sendDocument")
	if len(docs) != 1 || len(docs[0].Files["document"].Data) != 11<<20 || docs[0].Text != "the dump" {
		t.Fatalf("sendDocument calls: %d", len(docs))
	}
	if n := len(api.Calls("sendMessage")); n != 0 {
		t.Fatalf("%d separate messages; the text belongs in the caption", n)
	}
}
