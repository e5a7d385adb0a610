package agent_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// heldProvider answers only once released, and tells when it was asked.
type heldProvider struct {
	asked   chan struct{}
	release chan struct{}
}

func (p *heldProvider) Chat(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	return p.ChatStream(ctx, req, nil)
}

func (p *heldProvider) ChatStream(ctx context.Context, _ *providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	p.asked <- struct{}{}
	select {
	case <-p.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if onDelta != nil {
		onDelta(providers.Delta{Content: "answer"})
	}
	return &providers.Response{Message: providers.Message{Role: providers.RoleAssistant, Content: "answer"}, FinishReason: "stop"}, nil
}

// TestUserMessageIsStoredWhileTheModelAnswers checks that a turn's user
// message reaches the session file while the model is still answering, so
// a process killed then keeps it, whether the turn streams or not: another
// Store on the same directory, as another process would, reads it before
// the model answers.
func TestUserMessageIsStoredWhileTheModelAnswers(t *testing.T) {
	for _, stream := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "sessions")
		store, err := memory.NewStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := &heldProvider{asked: make(chan struct{}, 1), release: make(chan struct{})}
		a, err := agent.New(p, "m", store, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if stream {
			ctx = agent.WithSink(ctx, func(agent.StreamEvent) {})
		}
		done := make(chan error, 1)
		go func() {
			_, err := a.Process(ctx, agent.Request{SessionKey: "api:held", Text: "remember me"})
			done <- err
		}()
		<-p.asked
		other, err := memory.NewStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []memory.Message
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			sess, err := other.Load("api:held")
			if err != nil {
				t.Fatal(err)
			}
			if got = sess.Messages; len(got) > 0 {
				break
			}
		}
		if len(got) != 1 || got[0].Role != providers.RoleUser || got[0].Content != "remember me" {
			t.Errorf("stream %v: while the model answers the session holds %+v, want the user's message", stream, got)
		}
		close(p.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		a.Wait()
	}
}
