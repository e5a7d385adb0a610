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
	url, _, stop, err := startServeProc(bin, cfg)
	return url, stop, err
}

// startServeProc is startServe that also returns the process, and waits
// out the idler's start-up release (a second after start, see
// joshbot/internal/runtime/footprint.go) so no measured request pays for
// the executable's pages being unmapped under it.
func startServeProc(bin, cfg string) (string, *os.Process, func(), error) {
	cmd := exec.Command(bin, "--config", cfg, "serve")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, nil, err
	}
	stop := sync.OnceFunc(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			url, _, _ := strings.Cut(rest, " ")
			go io.Copy(io.Discard, stdout)
			time.Sleep(1500 * time.Millisecond)
			return url, cmd.Process, stop, nil
		}
	}
	stop()
	return "", nil, nil, fmt.Errorf("joshbot serve did not report its address")
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
func measureServe(rep *Report, bin, proxyBin, cfg, upstream string, n int) error {
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
	proxy, stopProxy, err := startFake(proxyBin, "-upstream", upstream)
	if err != nil {
		return fmt.Errorf("proxyfloor: %w", err)
	}
	defer stopProxy()
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
	for i := 0; i < warm; i++ {
		if _, _, err := ttfbBody(client, proxy, "", replay); err != nil {
			return fmt.Errorf("proxyfloor: %w", err)
		}
	}
	// Rounds of sequential turns, each its own p50 and p99, so the report
	// gives their median and range like every other figure: one round's
	// p99 rests on its few slowest requests.
	// The bare proxy is timed in the same rounds, on the very request the
	// upstream is timed on, so the part of joshbot's overhead that any
	// program in its place pays is measured beside it.
	var p50s, p99s, px50s, px99s, beyond50s, beyond99s, ratio50s, ratio99s []float64
	var jb50, jb99, up50, up99, pxy50, pxy99 []float64
	for r := 0; r < serveRounds; r++ {
		var up, jb, px []float64
		for i := 0; i < n; i++ {
			u, _, err := ttfbBody(client, upstream, "", replay)
			if err != nil {
				return fmt.Errorf("upstream: %w", err)
			}
			j, _, err := ttfb(client, url+"/v1", benchKey, fmt.Sprintf("seq-%d-%d", r, i))
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			p, _, err := ttfbBody(client, proxy, "", replay)
			if err != nil {
				return fmt.Errorf("proxyfloor: %w", err)
			}
			up = append(up, u.Seconds()*1000)
			jb = append(jb, j.Seconds()*1000)
			px = append(px, p.Seconds()*1000)
		}
		p50s = append(p50s, max(percentile(jb, 50)-percentile(up, 50), 0))
		p99s = append(p99s, max(percentile(jb, 99)-percentile(up, 99), 0))
		px50s = append(px50s, max(percentile(px, 50)-percentile(up, 50), 0))
		px99s = append(px99s, max(percentile(px, 99)-percentile(up, 99), 0))
		beyond50s = append(beyond50s, max(percentile(jb, 50)-percentile(px, 50), 0))
		beyond99s = append(beyond99s, max(percentile(jb, 99)-percentile(px, 99), 0))
		ratio50s = append(ratio50s, percentile(jb, 50)/percentile(px, 50))
		ratio99s = append(ratio99s, percentile(jb, 99)/percentile(px, 99))
		jb50, jb99 = append(jb50, percentile(jb, 50)), append(jb99, percentile(jb, 99))
		up50, up99 = append(up50, percentile(up, 50)), append(up99, percentile(up, 99))
		pxy50, pxy99 = append(pxy50, percentile(px, 50)), append(pxy99, percentile(px, 99))
	}
	med := func(xs []float64) float64 { m, _, _ := summarize(xs); return m }
	rep.add(Figure{Name: "floor: a bare streaming proxy's TTFB overhead p50", Unit: "ms", Samples: px50s,
		Note: fmt.Sprintf("bench/proxyfloor relaying the same request in the same rounds; median proxy %.2f ms − upstream %.2f ms", med(pxy50), med(up50))})
	rep.add(Figure{Name: "floor: a bare streaming proxy's TTFB overhead p99", Unit: "ms", Samples: px99s,
		Note: fmt.Sprintf("same rounds; median proxy %.2f ms − upstream %.2f ms", med(pxy99), med(up99))})
	rep.add(Figure{Name: "serve TTFB overhead p50", Unit: "ms", Target: 0.5, Samples: p50s,
		Note: fmt.Sprintf("%d rounds of %d sequential turns; median joshbot %.2f ms − upstream %.2f ms", serveRounds, n, med(jb50), med(up50))})
	rep.add(Figure{Name: "serve TTFB overhead p99", Unit: "ms", Target: 1.5, Samples: p99s,
		Note: fmt.Sprintf("%d rounds of %d sequential turns; median joshbot %.2f ms − upstream %.2f ms", serveRounds, n, med(jb99), med(up99))})
	rep.add(Figure{Name: "serve TTFB overhead beyond a bare proxy p50", Unit: "ms", Samples: beyond50s,
		Note: "joshbot's own work: the serve figure less the proxy floor's, round by round"})
	rep.add(Figure{Name: "serve TTFB overhead beyond a bare proxy p99", Unit: "ms", Samples: beyond99s,
		Note: "the same for the p99"})
	rep.add(Figure{Name: "serve TTFB p50 ÷ the bare proxy's TTFB p50", Unit: "×", Samples: ratio50s,
		Note: "round by round; for information: proposed to be judged ≤ 1.6× in place of the absolute overhead, see bench/CHANGELOG.md"})
	rep.add(Figure{Name: "serve TTFB p99 ÷ the bare proxy's TTFB p99", Unit: "×", Samples: ratio99s,
		Note: "round by round; for information: proposed to be judged ≤ 2×"})

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
	rep.add(Figure{Name: fmt.Sprintf("serve streamed turns, %d concurrent", conc), Unit: "req/s", Samples: []float64{rate}, Note: "each a full agent turn of a new session, saved durably"})
	stop()
	return measureServeConcurrent(rep, bin, proxyBin, cfg, upstream, replay)
}

// Concurrent conversations: how many stock-client chats run at once, how
// many turns each sends, and how many rounds (each a direct phase and a
// serve phase) the figures take the median of.
const (
	concChats  = 50
	concTurns  = 8
	concRounds = 3
)

// measureServeConcurrent runs concChats conversations at once against
// `joshbot serve` the way a stock chat app talks to it (no user field, the
// whole history resent each turn, so the server derives each
// conversation), with learning off, and the same number of concurrent
// requests straight to the upstream, in alternating phases of the same
// rounds. It reports serve's p50 time to first byte against the
// upstream's direct p50, serve's throughput as a share of the direct, and the
// CPU serve spent per turn (utime+stime of the process over its phases).
// A third phase sends the upstream's request through bench/proxyfloor, so
// the share of the TTFB ratio any program in serve's place pays is shown
// beside it.
func measureServeConcurrent(rep *Report, bin, proxyBin, cfg, upstream, replay string) error {
	// A config beside the other (same home, same sessions), with learning
	// off: its extra model request per turn is not the API's cost.
	noLearn := strings.TrimSuffix(cfg, ".json") + "-nolearn.json"
	b, err := os.ReadFile(cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(noLearn, b, 0o600); err != nil {
		return err
	}
	if err := editConfig(noLearn, func(doc map[string]any) {
		obj(obj(doc, "agents"), "defaults")["learning"] = "off"
	}); err != nil {
		return err
	}
	url, proc, stop, err := startServeProc(bin, noLearn)
	if err != nil {
		return err
	}
	defer stop()
	proxy, stopProxy, err := startFake(proxyBin, "-upstream", upstream)
	if err != nil {
		return fmt.Errorf("proxyfloor: %w", err)
	}
	defer stopProxy()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * concChats}}
	var ratioTTFB, sharePct, cpuPerTurn, pxRatio, pxShare, overPx []float64
	var jbP50, upP50, jbRate, upRate []float64
	for r := 0; r < concRounds; r++ {
		up, upSecs, err := concurrently(func(chat, turn int) (time.Duration, error) {
			first, _, err := ttfbBody(client, upstream, "", replay)
			return first, err
		})
		if err != nil {
			return fmt.Errorf("upstream, concurrent: %w", err)
		}
		cpu0, err := procCPU(proc.Pid)
		if err != nil {
			return err
		}
		chats := make([][]map[string]string, concChats)
		jb, jbSecs, err := concurrently(func(chat, turn int) (time.Duration, error) {
			msgs := append(chats[chat], map[string]string{"role": "user", "content": fmt.Sprintf("round %d chat %d turn %d", r, chat, turn)})
			body, _ := json.Marshal(map[string]any{"model": "bench", "stream": true, "messages": msgs})
			first, answer, err := ttfbAnswer(client, url+"/v1", benchKey, string(body))
			chats[chat] = append(msgs, map[string]string{"role": "assistant", "content": answer})
			return first, err
		})
		if err != nil {
			return fmt.Errorf("serve, concurrent: %w", err)
		}
		cpu1, err := procCPU(proc.Pid)
		if err != nil {
			return err
		}
		px, pxSecs, err := concurrently(func(chat, turn int) (time.Duration, error) {
			first, _, err := ttfbBody(client, proxy, "", replay)
			return first, err
		})
		if err != nil {
			return fmt.Errorf("proxyfloor, concurrent: %w", err)
		}
		turns := float64(concChats * concTurns)
		pxRatio = append(pxRatio, percentile(px, 50)/percentile(up, 50))
		pxShare = append(pxShare, 100*upSecs/pxSecs)
		overPx = append(overPx, percentile(jb, 50)/percentile(px, 50))
		j50, u50 := percentile(jb, 50), percentile(up, 50)
		jr, ur := turns/jbSecs, turns/upSecs
		jbP50, upP50, jbRate, upRate = append(jbP50, j50), append(upP50, u50), append(jbRate, jr), append(upRate, ur)
		ratioTTFB = append(ratioTTFB, j50/u50)
		sharePct = append(sharePct, 100*jr/ur)
		cpuPerTurn = append(cpuPerTurn, (cpu1-cpu0).Seconds()*1000/turns)
	}
	med := func(xs []float64) float64 { m, _, _ := summarize(xs); return m }
	what := fmt.Sprintf("%d rounds of %d chats × %d turns at once, no user field, whole history resent, learning off", concRounds, concChats, concTurns)
	rep.add(Figure{Name: "floor: a bare streaming proxy, concurrently: TTFB p50 ÷ upstream direct p50", Unit: "×", Samples: pxRatio,
		Note: "bench/proxyfloor relaying the upstream's request in a third phase of the same rounds, " + fmt.Sprint(concChats) + " at once"})
	rep.add(Figure{Name: "floor: a bare streaming proxy, concurrently: throughput, % of the upstream direct", Unit: "%", Samples: pxShare,
		Note: "same rounds"})
	rep.add(Figure{Name: "concurrent API TTFB p50 ÷ upstream direct p50", Unit: "×", Target: 3, Samples: ratioTTFB,
		Note: fmt.Sprintf("%s; median serve %.2f ms, upstream direct %.2f ms", what, med(jbP50), med(upP50))})
	rep.add(Figure{Name: "concurrent API TTFB p50 ÷ the bare proxy's", Unit: "×", Samples: overPx,
		Note: "round by round; for information: proposed to be judged ≤ 2× in place of the ratio to the upstream, see bench/CHANGELOG.md"})
	rep.add(Figure{Name: "concurrent API throughput, % of the upstream direct", Unit: "%", AtLeast: 25, Samples: sharePct,
		Note: fmt.Sprintf("same rounds; median serve %.0f turns/s, upstream direct %.0f requests/s", med(jbRate), med(upRate))})
	rep.add(Figure{Name: "concurrent API CPU per turn", Unit: "ms", Target: 1.5, Samples: cpuPerTurn,
		Note: "utime+stime of the serve process over each round's serve phase ÷ its turns, learning off"})
	return nil
}

// concurrently runs concChats workers, each doing concTurns calls of do
// in order, and returns every call's duration in milliseconds and the
// phase's wall time in seconds.
func concurrently(do func(chat, turn int) (time.Duration, error)) ([]float64, float64, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var ms []float64
	start := time.Now()
	for c := 0; c < concChats; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := 0; t < concTurns; t++ {
				d, err := do(c, t)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				ms = append(ms, d.Seconds()*1000)
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return ms, time.Since(start).Seconds(), firstErr
}

// ttfbAnswer is ttfbBody that also assembles the streamed answer, as a
// chat app does to send it back with the next turn.
func ttfbAnswer(client *http.Client, url, key, body string) (time.Duration, string, error) {
	req, err := http.NewRequestWithContext(context.Background(), "POST", url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(1); err != nil {
		return 0, "", err
	}
	first := time.Since(start)
	var answer strings.Builder
	for {
		line, err := br.ReadString('\n')
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok && data != "[DONE]" {
			var c struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if json.Unmarshal([]byte(data), &c) == nil {
				for _, ch := range c.Choices {
					answer.WriteString(ch.Delta.Content)
				}
			}
		}
		if err == io.EOF {
			return first, answer.String(), nil
		}
		if err != nil {
			return 0, "", err
		}
	}
}
