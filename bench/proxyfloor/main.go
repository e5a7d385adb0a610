// Command proxyfloor is the floor under `joshbot serve`'s time to first
// byte: the least a program that stands between a client and the model
// must add, measured on the same requests in the same rounds.
//
// For each chat request it reads the body, sends the same bytes on to
// -upstream over a kept-alive connection, and streams the answer back as
// it arrives, flushing after every read. So it pays what joshbot cannot
// avoid (one more loopback connection, an HTTP server reading the request
// and an HTTP client sending it on, one more process woken at each end)
// and none of joshbot's own work: no authentication, no session, no
// prompt, no JSON. The listening address is printed on stdout as the
// first line, as fakellm prints its own.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	upstream := flag.String("upstream", "", "base URL of the model server, ending in /v1")
	flag.Parse()
	if !strings.HasPrefix(*upstream, "http://") {
		log.Fatalf("proxyfloor: -upstream must be an http URL such as http://127.0.0.1:8080/v1, not %q", *upstream)
	}
	base := strings.TrimSuffix(*upstream, "/v1")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	relay := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		resp, err := client.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		rc := http.NewResponseController(w)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				if rc.Flush() != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		<-stop
		ln.Close()
	}()
	if err := http.Serve(ln, http.HandlerFunc(relay)); err != nil && !strings.Contains(err.Error(), "use of closed") {
		log.Fatal(err)
	}
}
