package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// notingTool reports a note while it runs, as web_search does when it
// falls back to another backend.
type notingTool struct{}

func (notingTool) Name() string                { return "slow_search" }
func (notingTool) Description() string         { return "searches slowly" }
func (notingTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (notingTool) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	tools.Note(ctx, "falling back to duckduckgo after exa failed")
	return "found", nil
}

// TestGatewayToolNoteIsTheStatusLine: a tool's mid-call note takes the
// live reply's status line, after the call's own line, whether or not the
// answer streams.
func TestGatewayToolNoteIsTheStatusLine(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		clearProviderEnv(t)
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.ToolCalls(providertest.Call("slow_search", `{}`)), providertest.Text("Found it."))
		cfgPath := gatewayConfig(t, srv, "42")
		cfg, err := config.Load(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Agents.Defaults.Streaming = streaming
		if err := config.Save(cfgPath, cfg); err != nil {
			t.Fatal(err)
		}
		ch := channeltest.NewFakeNamed("telegram")
		ctx, cancel := context.WithCancel(context.Background())
		rt, err := runtime.Load(ctx, &runtime.Options{
			ConfigPath: cfgPath, Home: filepath.Dir(cfgPath),
			Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &bytes.Buffer{}}, nil)),
			WrapTools: func(reg *tools.Registry) (*tools.Registry, error) {
				if err := reg.Register(notingTool{}); err != nil {
					return nil, err
				}
				return runtime.ProgressTools(reg)
			},
		})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			defer rt.Close()
			done <- New(rt, &Options{Grace: time.Second, Channels: []channels.Channel{ch}}).Run(ctx)
		}()
		ch.Inject(channels.Inbound{Conversation: "42", Principal: "42", Text: "find it", MessageID: "5", IsDirect: true})
		rec := ch.Await(t, "a finished live reply", func(r channeltest.Record) bool { return len(r.Streams) == 1 && r.Streams[0].Finished })
		cancel()
		if err := <-done; err != nil {
			t.Errorf("gateway: %v", err)
		}
		s := rec.Streams[0]
		want := []string{"⚙️ slow_search", "⏳ slow_search: falling back to duckduckgo after exa failed"}
		if !slices.Equal(s.Statuses, want) || s.Final != "Found it." {
			t.Fatalf("streaming %v: statuses %q, final %q; want %q", streaming, s.Statuses, s.Final, want)
		}
	}
}
