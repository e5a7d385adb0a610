package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/joshbot/joshbot/apiserver"
)

// echoAgent answers every turn by repeating the user's text, streaming it
// word by word.
type echoAgent struct{}

func (echoAgent) Turn(_ context.Context, req apiserver.TurnRequest, emit func(apiserver.Event)) (*apiserver.TurnResult, error) {
	answer := "you said: " + req.Text
	if emit != nil {
		for _, w := range strings.SplitAfter(answer, " ") {
			emit(apiserver.Event{Delta: w})
		}
	}
	return &apiserver.TurnResult{Text: answer}, nil
}

func ExampleNew() {
	srv, err := apiserver.New(&apiserver.Options{Agent: echoAgent{}, APIKeys: []string{"secret-key"}})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	body := `{"model":"anything","user":"alice","messages":[{"role":"user","content":"hello"}]}`
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer secret-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, out.Model, out.Choices[0].Message.Content)
	// Output: 200 joshbot you said: hello
}

func ExampleNew_noKey() {
	_, err := apiserver.New(&apiserver.Options{Agent: echoAgent{}, APIKeys: []string{"  "}})
	fmt.Println(err)
	// Output: no API key configured: add at least one non-blank key to Options.APIKeys
}
