package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// editConfig applies edit to the JSON config at path.
func editConfig(path string, edit func(map[string]any)) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	edit(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// obj returns doc[key] as an object, creating it.
func obj(doc map[string]any, key string) map[string]any {
	m, ok := doc[key].(map[string]any)
	if !ok {
		m = map[string]any{}
		doc[key] = m
	}
	return m
}

const benchKey = "bench-key-0123456789"

// startServe runs `joshbot serve` and returns its base URL and a stop
// function.
func startServe(bin, cfg string) (string, func(), error) {
	cmd := exec.Command(bin, "--config", cfg, "serve")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			url, _, _ := strings.Cut(rest, " ")
			go io.Copy(io.Discard, stdout)
			return url, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("joshbot serve did not report its address")
}

// ttfb sends one streamed chat request and returns the time to the first
// byte of the body and to the end of the stream.
func ttfb(client *http.Client, url, key, user string) (first, total time.Duration, err error) {
	return ttfbBody(client, url, key, `{"model":"bench","stream":true,"messages":[{"role":"user","content":"hello"}],"user":"`+user+`"}`)
}

// ttfbBody is ttfb with the request body given.
func ttfbBody(client *http.Client, url, key, body string) (first, total time.Duration, err error) {
	req, err := http.NewRequestWithContext(context.Background(), "POST", url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	one := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, one); err != nil {
		return 0, 0, err
	}
	first = time.Since(start)
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, err
	}
	return first, time.Since(start), nil
}

// percentile returns the p-th percentile (0-100) of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

// serveRounds is how many rounds of sequential turns the TTFB figures
// are taken over.
const serveRounds = 5

// lastUpstreamRequest fetches from fakellm the body of the newest chat
// request it was sent.
func lastUpstreamRequest(client *http.Client, upstream string) (string, error) {
	resp, err := client.Get(strings.TrimSuffix(upstream, "/v1") + "/v1/last-request")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("fakellm last-request: HTTP %d: %s", resp.StatusCode, b)
	}
	return string(b), nil
}

// measureServe reports joshbot serve's streaming time-to-first-byte
// overhead over the upstream's (p50 and p99, sequential requests) and its
// throughput at a fixed concurrency.
//
// The upstream is timed on the very request joshbot sends it (system
// prompt, history, tool definitions), replayed from fakellm's record, so
// the overhead is joshbot's own work: the upstream's reading of a larger
// body is the upstream's time, as it would be with a real provider.
func measureServe(rep *Report, bin, cfg, upstream string, n int) error {
	if err := editConfig(cfg, func(doc map[string]any) {
		obj(doc, "api")["api_keys"] = []string{benchKey}
		obj(doc, "api")["listen"] = "127.0.0.1:0"
	}); err != nil {
		return err
	}
	url, stop, err := startServe(bin, cfg)
	if err != nil {
		return err
	}
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	// Warm connections and caches, and learn the request joshbot sends.
	const warm = 5
	for i := 0; i < warm; i++ {
		if _, _, err := ttfb(client, url+"/v1", benchKey, fmt.Sprint("warm-", i)); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	replay, err := lastUpstreamRequest(client, upstream)
	if err != nil {
		return err
	}
	// Rounds of sequential turns, each its own p50 and p99, so the report
	// gives their median and range like every other figure: one round's
	// p99 rests on its few slowest requests.
	var p50s, p99s []float64
	var jb50, jb99, up50, up99 []float64
	for r := 0; r < serveRounds; r++ {
		var up, jb []float64
		for i := 0; i < n; i++ {
			u, _, err := ttfbBody(client, upstream, "", replay)
			if err != nil {
				return fmt.Errorf("upstream: %w", err)
			}
			j, _, err := ttfb(client, url+"/v1", benchKey, fmt.Sprintf("seq-%d-%d", r, i))
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			up = append(up, u.Seconds()*1000)
			jb = append(jb, j.Seconds()*1000)
		}
		p50s = append(p50s, max(percentile(jb, 50)-percentile(up, 50), 0))
		p99s = append(p99s, max(percentile(jb, 99)-percentile(up, 99), 0))
		jb50, jb99 = append(jb50, percentile(jb, 50)), append(jb99, percentile(jb, 99))
		up50, up99 = append(up50, percentile(up, 50)), append(up99, percentile(up, 99))
	}
	med := func(xs []float64) float64 { m, _, _ := summarize(xs); return m }
	rep.add(Figure{Name: "serve TTFB overhead p50", Unit: "ms", Samples: p50s,
		Note: fmt.Sprintf("%d rounds of %d sequential turns; median joshbot %.2f ms − upstream %.2f ms", serveRounds, n, med(jb50), med(up50))})
	rep.add(Figure{Name: "serve TTFB overhead p99", Unit: "ms", Target: 2, Samples: p99s,
		Note: fmt.Sprintf("%d rounds of %d sequential turns; median joshbot %.2f ms − upstream %.2f ms", serveRounds, n, med(jb99), med(up99))})

	const total, conc = 400, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int, total)
	for i := 0; i < total; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, _, err := ttfb(client, url+"/v1", benchKey, fmt.Sprint("load-", i)); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("serve throughput: %w", firstErr)
	}
	rate := float64(total) / time.Since(start).Seconds()
	rep.add(Figure{Name: fmt.Sprintf("serve streamed turns, %d concurrent", conc), Unit: "req/s", Samples: []float64{rate}, Note: "each a full agent turn with two durable session saves"})
	return nil
}
