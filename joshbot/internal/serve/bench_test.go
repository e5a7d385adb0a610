package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers/providertest"
)

// BenchmarkServeTurn runs streamed turns of distinct derived conversations
// (no user field, the whole history resent, as a stock chat app sends
// them; each conversation eight turns long) through the whole serve path
// over loopback: apiserver, the agent, the session store and the provider
// client, against the scripted provider. Profile it with -cpuprofile to
// see what a turn costs.
func BenchmarkServeTurn(b *testing.B) {
	srv := providertest.NewServer(b)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Text("Hello! How can I help?")
	})
	base, stop := startServer(b, srv)
	defer stop()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var history []map[string]string
		for pb.Next() {
			if len(history) == 16 {
				history = nil
			}
			history = append(history, map[string]string{"role": "user", "content": fmt.Sprintf("hello %d", n.Add(1))})
			msgs, _ := json.Marshal(history)
			body := `{"model":"joshbot","stream":true,"messages":` + string(msgs) + `}`
			req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			done := false
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				done = done || sc.Text() == "data: [DONE]"
			}
			history = append(history, map[string]string{"role": "assistant", "content": "Hello! How can I help?"})
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !done {
				b.Errorf("status %d, done %v", resp.StatusCode, done)
				return
			}
		}
	})
}

// BenchmarkServeTurnSequential runs streamed turns one at a time, each
// the first of a new explicit conversation (a fresh user key), as the
// bench's sequential time-to-first-byte rounds send them. Profile it with
// -cpuprofile to see what stands before the first byte.
func BenchmarkServeTurnSequential(b *testing.B) {
	srv := providertest.NewServer(b)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Text("Hello! How can I help?")
	})
	base, stop := startServer(b, srv)
	defer stop()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ReportAllocs()
	firsts := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		body := fmt.Sprintf(`{"model":"joshbot","stream":true,"messages":[{"role":"user","content":"hello"}],"user":"seq-%d"}`, i)
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		one := make([]byte, 1)
		if _, err := io.ReadFull(resp.Body, one); err != nil {
			b.Fatal(err)
		}
		firsts = append(firsts, time.Since(start))
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d, %v", resp.StatusCode, err)
		}
	}
	b.StopTimer()
	slices.Sort(firsts)
	b.ReportMetric(float64(firsts[len(firsts)/2].Microseconds()), "ttfb-p50-µs")
}
