package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// DefaultLearnTimeout bounds one learning request and, when needed, the
// consolidation request after it. A compaction after the turn has the
// turn timeout instead.
const DefaultLearnTimeout = 30 * time.Second

// Bounds that keep the learning step cheap.
const (
	learnMaxFacts      = 5  // per exchange
	learnMaxBatchFacts = 15 // per learning request
	learnMaxTurnChars  = 6_000
	learnMaxReplyChars = 1_500 // of each reply in a batch of several
	learnMaxTokens     = 400
	historyExcerptSide = 700
)

const learnPrompt = `You maintain the long-term memory of a personal AI assistant.
From the exchanges below, extract facts worth remembering in future conversations: stable facts about the user, their preferences, decisions, commitments and ongoing projects.
Do not extract anything that only matters for this moment, anything already in the known facts, guesses, or secrets such as passwords and keys.
Reply with JSON only, in the form {"facts": ["short self-contained sentence", ...]}, with at most %d facts, or {"facts": []} when there is nothing durable.`

const consolidatePrompt = `You maintain the long-term memory of a personal AI assistant. The list of facts below has grown too long.
Rewrite it shorter: merge related facts, drop duplicates and facts superseded by newer ones (later facts are newer), and keep every distinct piece of information that still matters.
Reply with JSON only, in the form {"facts": ["...", ...]}, in at most %d bytes in total.`

// turnRecord is what the background step needs from a finished turn,
// copied so that it does not share memory with the session.
type turnRecord struct {
	key, user, reply string
	tools            []string
}

// afterTurn starts the work that follows a successful reply: the history
// entry, the learning step (the exchange joins its session's batch, see
// learnQueue), the session counters and, when the saved session is due,
// its compaction. It runs on its own goroutine with its own
// deadlines, so it can neither delay nor fail the reply; its errors are
// logged. [Agent.Wait] waits for it. The caller still holds the session's
// turn lock and sess is the session as just saved.
func (a *Agent) afterTurn(key, user string, sess *memory.Session, from int, reply *Reply, tainted bool) {
	rec := turnRecord{key: key, user: user, reply: reply.Text}
	for _, m := range sess.Messages[min(from, len(sess.Messages)):] {
		for _, c := range m.ToolCalls {
			rec.tools = append(rec.tools, c.Name)
		}
	}
	// Checked here on the saved session, so that a turn that leaves it
	// under the threshold costs the background no lock and no reload.
	_, compact := a.compactionDue(sess, true)
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		ctx, cancel := context.WithTimeout(a.bgCtx, a.learnTimeout)
		defer cancel()
		// The history entry waits on the disk and the learning step on
		// the model, so they overlap; consolidation reads the history and
		// the learned facts, so it waits for both. No turn count is kept
		// in the session's sidecar: nothing reads one, and writing it was
		// a new file per session.
		var books sync.WaitGroup
		history := func() {
			if err := a.memory.AppendHistory(key, rec.excerpt()); err != nil {
				a.log.Warn("history entry not written", "session", key, "err", err)
			}
		}
		learn := a.memory != nil && !a.disableLearning && !tainted && worthLearning(rec.user)
		if a.memory != nil {
			if learn || compact {
				books.Go(history)
			} else {
				// Nothing to overlap: a goroutine would only cost a
				// thread's wake-up.
				history()
			}
		}
		switch {
		case a.memory == nil || a.disableLearning:
		case tainted:
			// Facts learned from a turn that read outside text would carry
			// that text into every later prompt of the conversation,
			// unfenced: an injection that outlives its turn. The exchange
			// stays out of the session's learning batch.
			a.log.Info("nothing learned from this turn: it read untrusted text", "session", key)
		case !worthLearning(rec.user):
			a.log.Debug("nothing to learn from this turn: the message states nothing about the user", "session", key)
		default:
			// Learned from with the session's next exchanges, in one
			// request (see learnQueue).
			a.learning.add(ctx, rec)
		}
		// Compaction comes after a full batch's learning request, so that
		// the two requests do not compete for a model that serves one at a
		// time and the learning step keeps its short deadline. It writes only the session, its
		// archive and the counters, each under the store's file lock, so it
		// may overlap the bookkeeping.
		if compact {
			a.compactAfterTurn(key)
		}
		books.Wait()
		if a.memory == nil {
			return
		}
		if rep, err := a.memory.ConsolidateIfDue(); err != nil {
			a.log.Warn("dream consolidation failed; it will be retried", "err", err)
		} else if rep.Records > 0 {
			a.log.Info("dream consolidation", "records", rep.Records, "insights", rep.Insights, "promoted", rep.Promoted)
		}
	}()
}

// Wait blocks until the background work of every finished turn (history,
// learning, counters, compaction) is done, learning at once from the
// exchanges still waiting for their batch (see MemoryOptions.LearnEvery).
// Call it before the process exits, after the last call to Process has
// returned.
func (a *Agent) Wait() {
	a.learning.startDrain()
	defer a.learning.endDrain()
	a.bg.Wait()
}

// Shutdown is [Agent.Wait] with a bound on waiting for the model: it too
// learns at once from the exchanges waiting for their batch. When ctx
// ends first, the background model requests still running (learning,
// compaction) are cancelled; they store nothing unless they finish, so an
// abandoned compaction leaves the session as it was and the next turn
// compacts it. Shutdown then waits for the disk writes left, which do not
// wait on the network, and returns ctx's error. After a cancelling
// Shutdown the agent learns and compacts after no further turn, so call it
// when the agent is done taking turns.
func (a *Agent) Shutdown(ctx context.Context) error {
	a.learning.startDrain()
	defer a.learning.endDrain()
	done := make(chan struct{})
	go func() {
		a.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	a.bgAbort()
	<-done
	return ctx.Err()
}

// abandoned tells whether err is a background model request cut short by
// [Agent.Shutdown].
func (a *Agent) abandoned(err error) bool {
	return err != nil && a.bgCtx.Err() != nil && errors.Is(err, context.Canceled)
}

// excerpt is the HISTORY.md entry of a turn: bounded, and deterministic so
// that it needs no model call.
func (r *turnRecord) excerpt() string {
	var b strings.Builder
	b.WriteString("user: " + clip(oneLineKeep(r.user), historyExcerptSide))
	if len(r.tools) > 0 {
		b.WriteString("\ntools: " + strings.Join(r.tools, ", "))
	}
	b.WriteString("\nassistant: " + clip(oneLineKeep(r.reply), historyExcerptSide))
	return b.String()
}

// oneLineKeep joins s into one line without shortening it.
func oneLineKeep(s string) string { return strings.Join(strings.Fields(s), " ") }

// scope is where learned facts go: the memory's scope of the session (its
// person's, see memory.LongTerm.ScopeOf), unless the operator chose to
// share what is learned.
func (a *Agent) scope(key string) string {
	if a.learnShared {
		return memory.SharedScope
	}
	return a.memory.ScopeOf(key)
}

// learnBatch learns from one session's exchanges, oldest first, in one
// request, and logs the outcome; it runs on a background goroutine.
func (a *Agent) learnBatch(ctx context.Context, key string, recs []turnRecord) {
	if err := a.learn(ctx, key, recs); a.abandoned(err) {
		a.log.Info("learning step abandoned: the process is stopping", "session", key, "exchanges", len(recs))
	} else if err != nil {
		a.log.Warn("learning step failed; nothing was learned from these exchanges", "session", key, "exchanges", len(recs), "err", err)
	}
}

// learn asks the model for durable facts in the exchanges and merges them.
func (a *Agent) learn(ctx context.Context, key string, recs []turnRecord) error {
	scope := a.scope(key)
	known, err := a.memory.Facts(scope)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Known facts:\n")
	if len(known) == 0 {
		b.WriteString("(none)\n")
	}
	for _, f := range known {
		b.WriteString("- " + f + "\n")
	}
	replyChars := learnMaxTurnChars / 2
	if len(recs) > 1 {
		replyChars = learnMaxReplyChars
	}
	b.WriteString("\nExchanges, oldest first:\n")
	for _, r := range recs {
		fmt.Fprintf(&b, "\nuser: %s\nassistant: %s\n", clip(r.user, learnMaxTurnChars/2), clip(r.reply, replyChars))
	}
	maxFacts := min(learnMaxFacts*len(recs), learnMaxBatchFacts)
	facts, err := a.askFacts(ctx, fmt.Sprintf(learnPrompt, maxFacts), b.String(), learnMaxTokens+learnMaxTokens/2*(min(len(recs), 5)-1))
	if err != nil {
		return err
	}
	if len(facts) > maxFacts {
		facts = facts[:maxFacts]
	}
	if len(facts) == 0 {
		return nil
	}
	added, over, err := a.memory.AddFacts(scope, facts)
	if err != nil {
		return err
	}
	if len(added) > 0 {
		a.log.Info("learned facts", "session", key, "added", len(added))
	}
	if over {
		a.consolidateFacts(ctx, scope)
	}
	return nil
}

// consolidateFacts brings an over-full fact file back under its limit: the
// model rewrites it shorter, and if that fails the oldest facts move to
// HISTORY.md. Either way nothing is cut.
func (a *Agent) consolidateFacts(ctx context.Context, scope string) {
	facts, err := a.memory.Facts(scope)
	if err == nil {
		var shorter []string
		// About three bytes per token leaves room for the JSON around
		// a rewrite of the whole file.
		shorter, err = a.askFacts(ctx, fmt.Sprintf(consolidatePrompt, a.memory.MaxBytes()*3/4), "Facts, oldest first:\n- "+strings.Join(facts, "\n- "), a.memory.MaxBytes()/3)
		if err == nil && len(shorter) > 0 {
			err = a.memory.Consolidate(scope, shorter)
			if err == nil {
				a.log.Info("consolidated memory", "scope", scopeName(scope), "facts_before", len(facts), "facts_after", len(shorter))
				return
			}
		} else if err == nil {
			err = errorf("the model returned no facts")
		}
	}
	moved, serr := a.memory.SpillOverflow(scope)
	if serr != nil {
		a.log.Warn("memory is over its size limit and could not be reduced", "scope", scopeName(scope), "err", serr, "consolidation_err", err)
		return
	}
	a.log.Info("memory over its size limit: moved the oldest facts to HISTORY.md", "scope", scopeName(scope), "moved", moved, "consolidation_err", err)
}

func scopeName(scope string) string {
	if scope == memory.SharedScope {
		return memory.MemoryFileName
	}
	return scope
}

// askFacts sends one small request and decodes {"facts": [...]} from the
// answer, tolerating prose or a code fence around the JSON.
func (a *Agent) askFacts(ctx context.Context, system, user string, maxTokens int) ([]string, error) {
	zero := 0.0
	resp, err := a.learning.provider.Chat(ctx, &providers.Request{
		Model: a.learning.model,
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: system},
			{Role: providers.RoleUser, Content: user},
		},
		Temperature: &zero,
		MaxTokens:   maxTokens,
	})
	if err != nil {
		if a.learning.separate {
			return nil, errorf("ask the learning model %s: %w", a.learning.model, err)
		}
		return nil, errorf("ask %s: %w", a.providerName, err)
	}
	text := resp.Message.Content
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return nil, errorf("the model's answer holds no JSON object: %q", clip(text, 200))
	}
	var out struct {
		Facts []string `json:"facts"`
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), &out); err != nil {
		return nil, errorf("the model's answer is not the expected JSON: %w", err)
	}
	return out.Facts, nil
}
