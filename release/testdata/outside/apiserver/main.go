// Command apiserver is an outside program that imports the published
// apiserver module: one chat completion through httptest.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/joshbot/joshbot/apiserver"
)

type upper struct{}

func (upper) Turn(_ context.Context, req apiserver.TurnRequest, emit func(apiserver.Event)) (*apiserver.TurnResult, error) {
	text := strings.ToUpper(req.Text)
	if emit != nil {
		emit(apiserver.Event{Delta: text})
	}
	return &apiserver.TurnResult{Text: text}, nil
}

func main() {
	srv, err := apiserver.New(&apiserver.Options{Agent: upper{}, APIKeys: []string{"outside-key"}})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"x","user":"u","messages":[{"role":"user","content":"shout"}]}`))
	req.Header.Set("Authorization", "Bearer outside-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
		log.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	fmt.Println("apiserver ok:", resp.StatusCode, out.Choices[0].Message.Content)
}
