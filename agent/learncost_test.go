package agent_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// fixtureConversation is a scripted 30-turn conversation with three
// durable facts about the user spread across it (turns 4, 15 and 26);
// the other turns are questions, thanks, asides in the first person that
// state nothing durable, and requests that make the model read a file.
var fixtureConversation = []string{
	"hi there",
	"what is the boiling point of water at sea level?",
	"and at the top of a high mountain?",
	"By the way, my daughter is called Mia and she turns seven next week.",
	"can you suggest a cake for a seven year old?",
	"read a.txt and tell me what it says",
	"thanks",
	"how long should I bake a sponge cake?",
	"what temperature?",
	"How far is Paris from Berlin by train?",
	"is there a night train?",
	"read a.txt again please",
	"what is a good book about trains?",
	"summarise the plot in three lines",
	"I prefer answers in metric units from now on, please.",
	"how tall is the Eiffel Tower?",
	"and how heavy is it?",
	"read a.txt once more",
	"I wonder why the sky is blue",
	"explain Rayleigh scattering simply",
	"thanks, that helps",
	"what is 17 times 23?",
	"and divided by 7?",
	"read a.txt and count its words",
	"ok",
	"I'm allergic to peanuts, remember that when you suggest recipes.",
	"suggest a dessert for tonight",
	"what goes well with it?",
	"how long does it keep in the fridge?",
	"read a.txt, the last time",
}

// fixtureFacts maps a phrase of the fixture's fact-stating turns to the
// fact the scripted learning model extracts when it sees it.
var fixtureFacts = map[string]string{
	"daughter is called Mia": "The user's daughter is named Mia",
	"metric units":           "The user prefers metric units",
	"allergic to peanuts":    "The user is allergic to peanuts",
}

// answerFor is the scripted model's deterministic answer to a turn: a
// paragraph of a realistic length (about 120 tokens).
func answerFor(question string) string {
	return "Here is what I can tell you about " + strings.TrimSuffix(question, "?") + ". " +
		strings.Repeat("It depends on a few things worth checking, and the short version is that the usual figure holds in most cases. ", 4)
}

// conversationCost is what one run of the fixture conversation cost.
type conversationCost struct {
	turnTokens, learnTokens     int // as reported by the scripted model
	turnRequests, learnRequests int
	facts                       []string
}

// overhead is learning's tokens as a share of the conversation's.
func (c conversationCost) overhead() float64 {
	return float64(c.learnTokens) / float64(c.turnTokens)
}

// runConversation plays the fixture conversation against a scripted
// model that reports usage (a token for every four bytes, see tokens)
// and returns the tokens and requests the turns and the learning step
// cost. Every sixth turn calls read_file before answering.
func runConversation(tb testing.TB, mem agent.MemoryOptions) conversationCost {
	tb.Helper()
	srv := providertest.NewServer(tb)
	var mu sync.Mutex
	var cost conversationCost
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last := r.Messages[len(r.Messages)-1]
		var reply providertest.Reply
		switch {
		case isLearningRequest(r):
			reply = providertest.Text(scriptedFacts(r, fixtureFacts))
			reply.Usage = tokens(r, reply.Content)
			cost.learnRequests++
			cost.learnTokens += reply.Usage.TotalTokens
			return reply
		case last.Role == "user" && strings.HasPrefix(last.Content, "read a.txt"):
			reply = providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`))
			reply.Usage = tokens(r, `{"path":"a.txt"}read_file`)
		case last.Role == "tool":
			reply = providertest.Text("The file says the secret word is pumpkin.")
			reply.Usage = tokens(r, reply.Content)
		default:
			reply = providertest.Text(answerFor(last.Content))
			reply.Usage = tokens(r, reply.Content)
		}
		cost.turnRequests++
		return reply
	})
	client, err := providers.NewClient(&providers.ClientOptions{Name: "scripted", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		tb.Fatal(err)
	}
	ws := tb.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("the secret word is pumpkin\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		tb.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(tb.TempDir(), "sessions"))
	if err != nil {
		tb.Fatal(err)
	}
	lt, err := memory.OpenLongTerm(tb.TempDir(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	mem.LongTerm = lt
	// No log: under go test -bench a log line would split the result
	// line the report reads.
	a, err := agent.New(client, "test-model", store, &agent.Options{Tools: reg, Workspace: ws, Memory: mem, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	reported := 0
	for _, text := range fixtureConversation {
		reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:fixture", Text: text})
		if err != nil {
			tb.Fatal(err)
		}
		reported += reply.Usage.TotalTokens
	}
	a.Wait()
	mu.Lock()
	defer mu.Unlock()
	if reported != cost.turnTokens && reported == 0 {
		tb.Fatalf("the turns reported no usage")
	}
	cost.turnTokens = reported
	cost.facts, err = lt.Facts("cli:fixture")
	if err != nil {
		tb.Fatal(err)
	}
	return cost
}

// The fixture conversation's three facts are learned with learning
// batched, learning costs at most 15% of the conversation's tokens, and
// at most one learning request per LearnEvery turns.
func TestLearningCostsLittleAndLearnsTheFixtureFacts(t *testing.T) {
	off := runConversation(t, agent.MemoryOptions{DisableLearning: true})
	batched := runConversation(t, agent.MemoryOptions{LearnIdle: -1})
	perTurn := runConversation(t, agent.MemoryOptions{LearnIdle: -1, LearnEvery: 1})
	for _, c := range []struct {
		name string
		cost conversationCost
	}{{"off", off}, {"batched (LearnEvery 5)", batched}, {"every turn (LearnEvery 1)", perTurn}} {
		t.Logf("learning %s: %d turn tokens in %d requests, %d learning tokens in %d requests (%.1f%% of the turns' tokens), %.0f tokens per turn",
			c.name, c.cost.turnTokens, c.cost.turnRequests, c.cost.learnTokens, c.cost.learnRequests, 100*c.cost.overhead(),
			float64(c.cost.turnTokens+c.cost.learnTokens)/float64(len(fixtureConversation)))
	}
	if off.learnRequests != 0 || off.turnTokens == 0 {
		t.Fatalf("learning off: %+v", off)
	}
	// Learning every turn sent 25 learning requests here (one per turn
	// that read no untrusted text); batched, at most one per LearnEvery
	// turns remains.
	if max := len(fixtureConversation) / agent.DefaultLearnEvery; batched.learnRequests > max {
		t.Errorf("batched learning sent %d requests for %d turns, want at most %d", batched.learnRequests, len(fixtureConversation), max)
	}
	if o := batched.overhead(); o > 0.15 {
		t.Errorf("batched learning costs %.1f%% of the conversation's tokens, want at most 15%%", 100*o)
	}
	want := []string{"The user's daughter is named Mia", "The user prefers metric units", "The user is allergic to peanuts"}
	for _, c := range []conversationCost{batched, perTurn} {
		got := strings.Join(c.facts, "|")
		for _, f := range want {
			if !strings.Contains(got, f) {
				t.Errorf("fact %q not learned: %q", f, c.facts)
			}
		}
	}
}

// BenchmarkConversationTokens reports the tokens per turn of the fixture
// conversation (30 turns, five of them with a tool call) against a
// scripted model that counts a token for every four bytes, with learning
// off, batched (the default) and after every turn; learn-tokens/turn is
// learning's share.
func BenchmarkConversationTokens(b *testing.B) {
	for _, mode := range []struct {
		name string
		mem  agent.MemoryOptions
	}{
		{"learning=off", agent.MemoryOptions{DisableLearning: true}},
		{"learning=batched", agent.MemoryOptions{LearnIdle: -1}},
		{"learning=every-turn", agent.MemoryOptions{LearnIdle: -1, LearnEvery: 1}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			var c conversationCost
			for i := 0; i < b.N; i++ {
				c = runConversation(b, mode.mem)
			}
			turns := float64(len(fixtureConversation))
			b.ReportMetric(float64(c.turnTokens+c.learnTokens)/turns, "tokens/turn")
			b.ReportMetric(float64(c.learnTokens)/turns, "learn-tokens/turn")
			b.ReportMetric(float64(c.turnRequests+c.learnRequests)/turns, "requests/turn")
		})
	}
}
