// Command fakellm serves instant scripted OpenAI-compatible chat
// completions on loopback, so joshbot can be measured without a model.
//
// Every request is answered at once. A system prompt that asks for JSON
// only gets {"facts": []}. Otherwise, when the conversation's last message
// is the user's and -tool names a tool, the answer is a call to that tool
// with -args; otherwise it is the text of -reply. The listening address is
// printed on stdout as the first line, so a driver can start it on port 0.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// LastRequestPath answers GET with the raw body of the newest chat
// completions request.
const LastRequestPath = "/v1/last-request"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	reply := flag.String("reply", "Hello! How can I help?", "text of every final answer")
	tool := flag.String("tool", "", "tool to call first in every turn (empty: answer at once)")
	args := flag.String("args", "{}", "JSON arguments of the tool call")
	flag.Parse()

	h := providertest.NewHandler()
	h.RecordRequests(false)
	// The body of the newest streamed chat request, so the bench can time
	// this server on exactly what joshbot sends it for a turn. Requests
	// made after the reply (the learning step) are not streamed and are
	// left out: they would make the baseline a smaller request.
	var lastBody atomic.Pointer[[]byte]
	h.SetFallback(func(r providertest.Request) providertest.Reply {
		if r.Stream {
			lastBody.Store(&r.Raw)
		}
		if wantsJSON(r.Messages) {
			// A model asked for JSON only (the learning and consolidation
			// steps) answers with JSON: here, that it found nothing.
			return providertest.Reply{Content: `{"facts": []}`, Usage: providers.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}
		}
		last := r.Messages[len(r.Messages)-1]
		if *tool != "" && last.Role == providers.RoleUser {
			return providertest.ToolCalls(providertest.Call(*tool, *args))
		}
		return providertest.Reply{Content: *reply, Usage: providers.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("fakellm: -addr %s: %v", *addr, err)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET "+LastRequestPath, func(w http.ResponseWriter, _ *http.Request) {
		b := lastBody.Load()
		if b == nil {
			http.Error(w, "fakellm: no chat request yet", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(*b)
	})
	srv := &http.Server{Handler: mux}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		h.Close()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatalf("fakellm: %v", err)
	}
}

// wantsJSON reports whether the system prompt asks for a JSON-only reply.
func wantsJSON(msgs []providers.Message) bool {
	return len(msgs) > 0 && msgs[0].Role == providers.RoleSystem && strings.Contains(msgs[0].Content, "Reply with JSON only")
}
