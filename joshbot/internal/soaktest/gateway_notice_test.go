package soaktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayRestartNoticeSurvivesAKill: a turn cut off by SIGKILL is
// owed the restart notice. When the gateway is killed again while that
// notice is still on its way (the Bot API has not received it), the next
// start must send it: the message's inbox record may only go once the
// notice went out. The soak found this loss (one message in about six
// runs neither answered nor noticed): the notice was queued on the bus
// and the record removed at once.
func TestGatewayRestartNoticeSurvivesAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; it runs in the race pass of `make test`, not under -short")
	}
	bin := buildBinary(t)
	api := telegramtest.NewBotAPI("")
	defer api.Close()
	model := providertest.NewHandler()
	modelSrv := httptestServer(t, model)
	asked := make(chan struct{}, 10)
	model.SetFallback(func(providertest.Request) providertest.Reply {
		asked <- struct{}{}
		return providertest.Reply{Content: "too late", Delay: time.Minute}
	})
	home := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Agents.Defaults.Learning = "off"
	cfg.Providers["custom"] = config.Provider{APIBase: modelSrv + "/v1"}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, Token: api.Token, APIURL: api.URL, AllowFrom: []string{"101"}}
	cfgPath := filepath.Join(home, "config.json")
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "JOSHBOT_HOME=" + home}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	defer func() {
		if t.Failed() {
			t.Logf("gateway logs:\n%s", logs.String())
		}
	}()
	kill := func(cmd *exec.Cmd) {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}

	gw := start()
	_, msgID := api.UserSends(101, "a long job")
	select {
	case <-asked: // the turn is running
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
	kill(gw)

	isNotice := func(c telegramtest.Call) bool {
		return c.Method == "sendMessage" && strings.HasPrefix(c.Text, restartNotice)
	}
	api.Hold(isNotice)
	gw = start()
	waitFor(t, "the restart notice on its way", 30*time.Second, func() bool { return api.Held() > 0 })
	time.Sleep(500 * time.Millisecond) // time enough to forget the message, if it would
	kill(gw)
	api.Release()

	gw = start()
	waitFor(t, "the restart notice", 20*time.Second, func() bool {
		for _, c := range api.Sent(101) {
			if isNotice(c) && replyTo(c) == itoa(msgID) {
				return true
			}
		}
		return false
	})
	gw.Process.Signal(syscall.SIGTERM)
	gw.Wait()
}
