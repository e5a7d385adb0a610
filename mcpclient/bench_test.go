package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkFenceLargeResult measures what every result pays on its way to
// the model: defanging, capping and fencing a 64 KiB text.
func BenchmarkFenceLargeResult(b *testing.B) {
	text := strings.Repeat("some result text with a <memory> tag in it\n", 1500)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		fenceResult("srv", "tool", text, false)
	}
}

// BenchmarkManifestHash measures hashing a 50-tool manifest.
func BenchmarkManifestHash(b *testing.B) {
	var m Manifest
	for i := range 50 {
		m.Tools = append(m.Tools, AdvertisedTool{Name: strings.Repeat("t", i+1), Description: strings.Repeat("d", 300), InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	}
	for b.Loop() {
		m.Hash()
	}
}

// BenchmarkCallOverStdio measures one tool call round trip to a server
// process, result fencing included.
func BenchmarkCallOverStdio(b *testing.B) {
	exe := selfServer(b, "h", "good", nil)
	m := NewManager(nil)
	defer m.Close()
	if err := m.Start(context.Background(), []Server{exe}); err != nil {
		b.Fatal(err)
	}
	store := OpenTrustStore(b.TempDir() + "/mcp.trust")
	store.Approve("h", statusOf(m, "h").SHA256)
	m.Close()
	tm := NewManager(&Options{Trust: store})
	defer tm.Close()
	tm.Start(context.Background(), []Server{exe})
	var echo *Tool
	for _, tl := range tm.Tools() {
		if tl.Name() == "mcp__h__echo" {
			echo = tl
		}
	}
	if echo == nil {
		b.Fatalf("no echo tool: %+v", tm.Status())
	}
	args := json.RawMessage(`{"text":"hi"}`)
	for b.Loop() {
		if _, err := echo.Execute(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
