package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// instantProvider answers in-process with no I/O: a read_file call for the
// first request of a turn, text once the tool result is in.
type instantProvider struct{}

func (instantProvider) Chat(_ context.Context, r *providers.Request) (*providers.Response, error) {
	if r.Messages[len(r.Messages)-1].Role == providers.RoleUser {
		return &providers.Response{Message: providers.Message{
			Role: providers.RoleAssistant,
			ToolCalls: []providers.ToolCall{{ID: "c1", Type: "function",
				Function: providers.FunctionCall{Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		}}, nil
	}
	return &providers.Response{Message: providers.Message{Role: providers.RoleAssistant, Content: "done"}}, nil
}

func (p instantProvider) ChatStream(ctx context.Context, r *providers.Request, _ func(providers.Delta)) (*providers.Response, error) {
	return p.Chat(ctx, r)
}

// BenchmarkTurnOneToolCall measures the agent's own cost of one turn with
// one tool call: prompt assembly, two model round trips through an instant
// in-process provider, the read_file tool, and two durable session saves
// (each fsynced, which dominates on most disks).
func BenchmarkTurnOneToolCall(b *testing.B) {
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "SOUL.md"), []byte("Be brief."), 0o600); err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		b.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(b.TempDir(), "s"))
	if err != nil {
		b.Fatal(err)
	}
	a, err := agent.New(instantProvider{}, "m", store, &agent.Options{Tools: reg, Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.Wait)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A fresh session per turn keeps every iteration the same size.
		reply, err := a.Process(ctx, agent.Request{SessionKey: fmt.Sprintf("bench:%d", i), Text: "read a.txt"})
		if err != nil || reply.Text != "done" {
			b.Fatalf("reply %+v, err %v", reply, err)
		}
	}
}
