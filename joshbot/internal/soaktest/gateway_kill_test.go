package soaktest

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// restartNotice is the start of what the gateway sends, after a crash, for
// a message whose turn the crash cut off.
const restartNotice = "I was restarted while working on your last message"

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildBinary builds joshbot once for the package's tests, into a
// temporary directory TestMain removes.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "joshbot-soak-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "joshbot")
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/joshbot/joshbot/joshbot/cmd/joshbot").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build joshbot: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// soakMessage is one message a user sent, with where it went.
type soakMessage struct {
	user   int64
	seq    int    // its place among that user's messages
	text   string // unique, and what the model echoes
	msgID  int    // the Telegram message id
	update int64
}

// TestGatewaySurvivesRandomKills sends 60 messages from 4 senders to the
// real gateway binary while killing it with SIGKILL 25 times at seeded
// random points, restarting it each time, then lets it settle. Every
// message must be answered exactly once, or answered never but followed by
// the restart notice; none may be answered twice or silently lost, and
// each sender's answers must come in the order the messages were sent.
func TestGatewaySurvivesRandomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("the SIGKILL soak builds the binary and runs for up to a minute; it runs in the race pass of `make test`, not under -short")
	}
	const (
		senders  = 4
		perUser  = 15
		kills    = 25
		seed     = 20
		settleBy = 60 * time.Second
	)
	rng := rand.New(rand.NewPCG(seed, seed))
	bin := buildBinary(t)

	api := telegramtest.NewBotAPI("")
	defer api.Close()
	// The handler on a server of our own, not providertest.NewServer: a
	// request cut off by SIGKILL is expected here, not a test failure.
	model := providertest.NewHandler()
	modelSrv := httptest.NewServer(model)
	defer modelSrv.Close()
	defer model.Close()
	// Each answer takes the model a while, so kills land mid-turn too.
	var delayMu sync.Mutex
	delays := rand.New(rand.NewPCG(seed, 1))
	model.SetFallback(func(r providertest.Request) providertest.Reply {
		last := r.Messages[len(r.Messages)-1]
		delayMu.Lock()
		d := time.Duration(50+delays.IntN(350)) * time.Millisecond
		delayMu.Unlock()
		return providertest.Reply{Content: "re: " + strings.TrimSpace(last.Content) + " ok", Delay: d}
	})

	home := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Agents.Defaults.Learning = "off"
	cfg.Providers["custom"] = config.Provider{APIBase: modelSrv.URL + "/v1"}
	var allow []string
	for u := 1; u <= senders; u++ {
		allow = append(allow, fmt.Sprint(100+u))
	}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, Token: api.Token, APIURL: api.URL, AllowFrom: allow}
	cfgPath := filepath.Join(home, "config.json")
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "JOSHBOT_HOME=" + home}
	logDir := t.TempDir()
	runs := 0
	start := func() *exec.Cmd {
		runs++
		cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
		cmd.Env = env
		logf, err := os.Create(filepath.Join(logDir, fmt.Sprintf("run%02d.log", runs)))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logf.Close()
		return cmd
	}
	defer func() {
		if t.Failed() {
			for i := max(1, runs-2); i <= runs; i++ {
				b, _ := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("run%02d.log", i)))
				t.Logf("gateway run %d log:\n%s", i, b)
			}
		}
	}()

	// The users write while the gateway is being killed.
	var mu sync.Mutex
	var sent []*soakMessage
	plan := make([]int64, 0, senders*perUser)
	for u := 1; u <= senders; u++ {
		for i := 0; i < perUser; i++ {
			plan = append(plan, int64(100+u))
		}
	}
	rng.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	gaps := make([]time.Duration, len(plan))
	for i := range gaps {
		// Half the messages follow the one before at once, so the
		// gateway often reads several in one poll.
		if rng.IntN(2) == 0 {
			gaps[i] = time.Duration(rng.IntN(700)) * time.Millisecond
		}
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		seq := map[int64]int{}
		for i, user := range plan {
			time.Sleep(gaps[i])
			seq[user]++
			m := &soakMessage{user: user, seq: seq[user], text: fmt.Sprintf("u%d-m%03d", user, seq[user])}
			m.update, m.msgID = api.UserSends(user, m.text)
			mu.Lock()
			sent = append(sent, m)
			mu.Unlock()
		}
	}()

	began := time.Now()
	for k := 0; k < kills; k++ {
		polls := len(api.Calls("getUpdates"))
		gw := start()
		// Kill while the gateway works, not while it starts: once it has
		// polled, every other kill at a random point up to 0.8 s later,
		// the others within 20 ms of the gateway reading updates, before
		// its next poll confirms them: the window in which Telegram
		// redelivers what the gateway already accepted.
		for t0 := time.Now(); len(api.Calls("getUpdates")) == polls && time.Since(t0) < 10*time.Second; {
			time.Sleep(10 * time.Millisecond)
		}
		if k%2 == 0 {
			time.Sleep(time.Duration(rng.IntN(800)) * time.Millisecond)
		} else {
			handed := api.HandedOut()
			for t0 := time.Now(); api.HandedOut() == handed && time.Since(t0) < 3*time.Second; {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		}
		gw.Process.Signal(syscall.SIGKILL)
		gw.Wait()
	}
	<-fed
	killedAt := time.Since(began)
	gw := start()
	deadline := time.Now().Add(settleBy)
	var st soakStats
	for {
		st = tally(api, sent)
		if st.settled == len(sent) && api.Pending() == 0 {
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A little longer: a late duplicate must have the chance to show.
	time.Sleep(1500 * time.Millisecond)
	st = tally(api, sent)
	gw.Process.Signal(syscall.SIGTERM)
	gw.Wait()

	t.Logf("soak (seed %d): %d messages from %d senders, %d SIGKILLs in %v, settled after %v total",
		seed, len(sent), senders, kills, killedAt.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	t.Logf("updates Telegram would have redelivered (read, then not confirmed before a kill): %d", api.Redelivered())
	t.Logf("answered once: %d (of which also given the restart notice: %d); answered never but with the restart notice: %d; answered twice: %d; silently lost: %d; order violations: %d",
		st.once, st.onceAndNotice, st.noticeOnly, st.twice, st.lost, st.orderViolations)
	for _, d := range st.details {
		t.Log(d)
	}
	if st.twice != 0 || st.lost != 0 || st.orderViolations != 0 {
		t.Fatalf("%d answered twice, %d silently lost, %d order violations: want none", st.twice, st.lost, st.orderViolations)
	}
	if st.once+st.noticeOnly != len(sent) {
		t.Fatalf("%d of %d messages accounted for", st.once+st.noticeOnly, len(sent))
	}
}

type soakStats struct {
	settled                                      int
	once, onceAndNotice, noticeOnly, twice, lost int
	orderViolations                              int
	details                                      []string
}

// tally classifies each sent message by the bot messages that thread to
// it: an answer is a bot message whose text now reads exactly the model's
// echo, a notice one that starts with the restart notice.
func tally(api *telegramtest.BotAPI, sent []*soakMessage) soakStats {
	var st soakStats
	byChat := map[int64][]telegramtest.Call{}
	for _, c := range api.Calls("sendMessage") {
		byChat[c.ChatID] = append(byChat[c.ChatID], c)
	}
	lastSeq := map[int64]int{}
	answers := map[*soakMessage]int{}
	notices := map[*soakMessage]int{}
	index := map[string]*soakMessage{}
	for _, m := range sent {
		index[fmt.Sprint(m.user, ":", m.msgID)] = m
	}
	chats := make([]int64, 0, len(byChat))
	for c := range byChat {
		chats = append(chats, c)
	}
	sort.Slice(chats, func(i, j int) bool { return chats[i] < chats[j] })
	for _, chat := range chats {
		for _, c := range byChat[chat] { // in the order the bot created them
			m := index[fmt.Sprint(chat, ":", replyTo(c))]
			if m == nil {
				continue
			}
			text, _ := api.Message(chat, c.MessageID)
			switch {
			case strings.TrimSpace(text) == "re: "+m.text+" ok":
				answers[m]++
				if m.seq < lastSeq[chat] {
					st.orderViolations++
					st.details = append(st.details, fmt.Sprintf("order: %s answered after message %d of the same sender", m.text, lastSeq[chat]))
				}
				lastSeq[chat] = max(lastSeq[chat], m.seq)
			case strings.HasPrefix(text, restartNotice):
				notices[m]++
			}
		}
	}
	for _, m := range sent {
		a, n := answers[m], notices[m]
		switch {
		case a == 1:
			st.once++
			if n > 0 {
				st.onceAndNotice++
			}
		case a > 1:
			st.twice++
			st.details = append(st.details, fmt.Sprintf("twice: %s answered %d times", m.text, a))
		case n > 0:
			st.noticeOnly++
		default:
			st.lost++
			st.details = append(st.details, fmt.Sprintf("lost: %s (update %d) has neither an answer nor the restart notice", m.text, m.update))
		}
		if a > 0 || n > 0 {
			st.settled++
		}
	}
	return st
}

// replyTo returns the Telegram message id a bot message threads to, from
// either form of the Bot API's reply parameter.
func replyTo(c telegramtest.Call) string {
	if v := c.Params["reply_to_message_id"]; v != "" {
		return v
	}
	if v := c.Params["reply_parameters"]; v != "" {
		var id int
		if i := strings.Index(v, `"message_id":`); i >= 0 {
			fmt.Sscanf(v[i+len(`"message_id":`):], "%d", &id)
			return fmt.Sprint(id)
		}
	}
	return ""
}
