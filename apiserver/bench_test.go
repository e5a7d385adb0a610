package apiserver

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// wordsAgent streams a fixed answer in four deltas, standing in for the
// agent so the benchmark measures the HTTP layer alone.
type wordsAgent struct{}

func (wordsAgent) Turn(_ context.Context, _ TurnRequest, emit func(Event)) (*TurnResult, error) {
	for _, w := range []string{"A scripted ", "answer in ", "four ", "pieces."} {
		emit(Event{Delta: w})
	}
	return &TurnResult{Text: "A scripted answer in four pieces."}, nil
}

// BenchmarkChatStream measures one streamed completion over loopback HTTP,
// from request to [DONE], with the agent's own cost taken out.
func BenchmarkChatStream(b *testing.B) {
	s, err := New(&Options{Agent: wordsAgent{}, APIKeys: []string{testKey}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	const body = `{"stream":true,"stream_options":{"include_usage":true},"user":"bench","messages":[{"role":"user","content":"hi"}]}`
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			done := false
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if sc.Text() == "data: [DONE]" {
					done = true
				}
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || !done {
				b.Errorf("status %d, done %v", resp.StatusCode, done)
				return
			}
		}
	})
}
