// Command memory is an outside program that imports the published memory
// module: append to a session, then reload it from disk with a new Store.
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/joshbot/joshbot/memory"
)

func main() {
	dir, err := os.MkdirTemp("", "outside-memory-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := memory.NewStore(dir)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.Append("cli:1", memory.Message{Role: "user", Content: "remember me"}, memory.Message{Role: "assistant", Content: "remembered"}); err != nil {
		log.Fatal(err)
	}
	again, err := memory.NewStore(dir)
	if err != nil {
		log.Fatal(err)
	}
	sess, err := again.Load("cli:1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("memory ok: %d messages, last %q\n", len(sess.Messages), sess.Messages[len(sess.Messages)-1].Content)
}
