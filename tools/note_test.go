package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestNoteWithoutReceiverIsNoop(t *testing.T) {
	Note(context.Background(), "nobody listens") // must not panic
	var got []string
	ctx := WithNotes(context.Background(), func(s string) { got = append(got, s) })
	Note(ctx, "")
	Note(ctx, "downloading 3 of 7")
	if !reflect.DeepEqual(got, []string{"downloading 3 of 7"}) {
		t.Fatalf("notes %q", got)
	}
}

// The search chain says which leg it falls back to, once per leg, and a
// first leg that answers sends no note.
func TestWebSearchNotesFallback(t *testing.T) {
	exa := &scripted{name: "exa", fn: fail}
	mcp := &scripted{name: "exa-mcp", fn: fail}
	ddg := &scripted{name: "duckduckgo", fn: ok("ddg")}
	search := searchTool(t, newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{exa, mcp, ddg}}), "web_search")
	var got []string
	ctx := WithNotes(context.Background(), func(s string) { got = append(got, s) })
	if _, err := search.Execute(ctx, json.RawMessage(`{"query":"x"}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{"falling back to exa-mcp after exa failed", "falling back to duckduckgo after exa-mcp failed"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("notes %q, want %q", got, want)
	}
	got = nil
	exa.fn = ok("exa")
	search = searchTool(t, newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{exa, ddg}}), "web_search")
	if _, err := search.Execute(ctx, json.RawMessage(`{"query":"x"}`)); err != nil || len(got) != 0 {
		t.Fatalf("first leg answered: notes %q, err %v", got, err)
	}
}

func TestWebFetchNotesWhileReading(t *testing.T) {
	srv := newLoopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello"))
	})
	w := NewWebFetch(nil)
	allowOnly(w, srv)
	var got []string
	ctx := WithNotes(context.Background(), func(s string) { got = append(got, s) })
	if _, err := w.Execute(ctx, json.RawMessage(`{"url":"`+srv.URL+`/x"}`)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], "answered 200 OK; reading the page") {
		t.Fatalf("notes %q", got)
	}
}
