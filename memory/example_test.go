package memory_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/memory"
)

// CompactionCut never starts the kept part at a tool result, so a call and
// its results are summarized or kept together.
func ExampleCompactionCut() {
	msgs := []memory.Message{
		{Role: "user", Content: "read a.txt"},
		{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "c1", Name: "read_file"}}},
		{Role: "tool", ToolCallID: "c1", Content: "..."},
		{Role: "assistant", Content: "done"},
		{Role: "user", Content: "thanks"},
	}
	cut := memory.CompactionCut(msgs, 2) // keep two messages before the turn
	fmt.Println(cut, msgs[cut].Role)
	// Output: 1 assistant
}

// Facts learned in one conversation stay in that conversation's scope.
func ExampleLongTerm_AddFacts() {
	dir, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(dir)
	lt, err := memory.OpenLongTerm(filepath.Join(dir, "workspace"), nil)
	if err != nil {
		panic(err)
	}
	added, _, _ := lt.AddFacts("telegram:1", []string{"Has a dog called Rex", "has a dog called rex."})
	fmt.Println(added)
	mine, _ := lt.Facts("telegram:1")
	theirs, _ := lt.Facts("telegram:2")
	fmt.Println(len(mine), len(theirs))
	// Output:
	// [Has a dog called Rex]
	// 1 0
}

// A store keeps one JSONL file per session key; what one Store appends,
// another opened on the same directory (a restart) loads.
func ExampleStore() {
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)
	s, err := memory.NewStore(dir)
	if err != nil {
		panic(err)
	}
	if _, err := s.Append("telegram:42",
		memory.Message{Role: "user", Content: "remind me to buy milk"},
		memory.Message{Role: "assistant", Content: "Noted."},
	); err != nil {
		panic(err)
	}

	again, _ := memory.NewStore(dir)
	sess, err := again.Load("telegram:42")
	if err != nil {
		panic(err)
	}
	for _, m := range sess.Messages {
		fmt.Println(m.Role+":", m.Content)
	}
	keys, _ := again.Keys()
	fmt.Println(keys)
	// Output:
	// user: remind me to buy milk
	// assistant: Noted.
	// [telegram:42]
}
