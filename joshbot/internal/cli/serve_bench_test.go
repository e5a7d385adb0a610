package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers/providertest"
)

// Load shape of BenchmarkServeLoad: streamed requests per iteration and
// connections in flight.
const (
	loadRequests    = 2000
	loadConcurrency = 50
)

// BenchmarkServeLoad sends 2,000 streamed chat completions over 50
// concurrent loopback connections to a live joshbot serve whose agent talks
// to the scripted provider, checks every stream, and reports throughput and
// time to first byte. Any failed request fails the benchmark. Run it with
//
//	go test -run '^$' -bench ServeLoad -benchtime 1x ./internal/cli/
func BenchmarkServeLoad(b *testing.B) {
	clearProviderEnv(b)
	srv := providertest.NewServer(b)
	srv.RecordRequests(false)
	const answer = "A scripted answer streamed in four pieces."
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Reply{Content: answer, Chunks: 4}
	})
	s := startServe(b, serveConfig(b, srv, nil))
	tr := &http.Transport{MaxIdleConnsPerHost: loadConcurrency, MaxConnsPerHost: loadConcurrency}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}

	var allTTFB []time.Duration
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		ttfb := make([]time.Duration, loadRequests)
		var next atomic.Int64
		var failures atomic.Int64
		var firstErr sync.Once
		var errText string
		start := time.Now()
		var wg sync.WaitGroup
		for w := range loadConcurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// One conversation per connection, as separate clients
				// would have; turns on one conversation queue by design.
				user := fmt.Sprintf("load-%d", w)
				for {
					i := next.Add(1) - 1
					if i >= loadRequests {
						return
					}
					d, err := streamOnce(client, s.url, user, answer)
					if err != nil {
						failures.Add(1)
						firstErr.Do(func() { errText = err.Error() })
						continue
					}
					ttfb[i] = d
				}
			}()
		}
		wg.Wait()
		total += time.Since(start)
		if n := failures.Load(); n > 0 {
			b.Fatalf("%d of %d requests failed; first: %s", n, loadRequests, errText)
		}
		allTTFB = append(allTTFB, ttfb...)
	}
	b.StopTimer()
	slices.Sort(allTTFB)
	pct := func(p float64) float64 {
		return float64(allTTFB[int(p*float64(len(allTTFB)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(loadRequests*b.N)/total.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ttfb-ms")
	b.ReportMetric(pct(0.99), "p99-ttfb-ms")
	b.ReportMetric(0, "ns/op") // one op is a whole load run; req/s says it better
}

// streamOnce sends one streamed completion, checks the stream end to end,
// and returns the time to the first response byte.
func streamOnce(client *http.Client, base, user, want string) (time.Duration, error) {
	var first time.Time
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { first = time.Now() },
	})
	body := `{"model":"joshbot","stream":true,"user":"` + user + `","messages":[{"role":"user","content":"hello"}]}`
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+serveKey)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	var text strings.Builder
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "data: [DONE]" {
			done = true
			continue
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			if i := strings.Index(d, `"content":"`); i >= 0 {
				rest := d[i+len(`"content":"`):]
				text.WriteString(rest[:strings.IndexByte(rest, '"')])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if !done || text.String() != want {
		return 0, fmt.Errorf("stream incomplete (done=%v) or wrong text %q", done, text.String())
	}
	return first.Sub(start), nil
}
