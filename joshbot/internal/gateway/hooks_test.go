package gateway

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

func TestGatewayCarriesMessagesScheduledJobsAndLastChat(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := gatewayConfig(t, srv, "42")
	home := filepath.Dir(cfgPath)
	// A reminder made earlier in chat 7, due now.
	due, _ := json.Marshal([]tools.CronJob{{ID: "j1", Message: "call mom", SessionKey: "telegram:42", Channel: "telegram", ChatID: "7",
		Next: time.Now().Add(-time.Minute), Created: time.Now().Add(-time.Hour)}})
	os.WriteFile(filepath.Join(home, runtime.CronFile), due, 0o600)
	srv.Enqueue(providertest.Text("Time to call mom."))
	ch, view := newPlain()
	stop := startGateway(t, cfgPath, view)
	if got := awaitSent(t, ch, 1); got[0] != "7: Time to call mom." {
		t.Fatalf("scheduled reply = %q", got)
	}

	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("message", `{"text":"working on it"}`)),
		providertest.Text("Done."),
	)
	ch.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "do it", MessageID: "5", IsDirect: true})
	awaitSent(t, ch, 3)
	stop()
	sent := strings.Join(sentLines(ch.Record()), "|")
	if sent != "7: Time to call mom.|42: working on it|42: Done." {
		t.Fatalf("sent = %s", sent)
	}
	raw, _ := os.ReadFile(filepath.Join(home, runtime.ChatIDsFile))
	if !strings.Contains(string(raw), `"telegram": "42"`) {
		t.Fatalf("chat_ids.json = %s", raw)
	}
	if fi, err := os.Stat(filepath.Join(home, runtime.ChatIDsFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("chat_ids.json mode: %v %v", fi, err)
	}
}
