// Command faketg is the smallest Telegram Bot API that keeps a joshbot
// gateway connected: getMe answers, getUpdates holds each long poll for its
// timeout and returns nothing, every other method succeeds. It lets the
// bench measure an idle gateway with Telegram enabled. The listening base
// URL is printed on stdout as the first line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	hold := flag.Duration("hold", 0, "answer each long poll after at most this long (0: the poll's own timeout), so an idle measurement sees poll cycles")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("faketg: -addr %s: %v", *addr, err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
		var result any = true
		switch method {
		case "getMe":
			result = map[string]any{"id": 4242, "is_bot": true, "first_name": "bench", "username": "bench_bot"}
		case "getUpdates":
			var p struct {
				Timeout int `json:"timeout"`
			}
			json.NewDecoder(r.Body).Decode(&p)
			wait := time.Duration(p.Timeout) * time.Second
			if *hold > 0 {
				wait = min(wait, *hold)
			}
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				return
			}
			result = []any{}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
	}))
}
