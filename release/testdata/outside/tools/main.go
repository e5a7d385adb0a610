// Command tools is an outside program that imports the published tools
// module: a registry running the contained file tools.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/tools"
)

func main() {
	ws, err := os.MkdirTemp("", "outside-tools-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(ws)
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	args, _ := json.Marshal(map[string]string{"path": "note.txt", "content": "contained"})
	if _, err := reg.Execute(ctx, "write_file", args); err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(ws, "note.txt"))
	if err != nil {
		log.Fatal(err)
	}
	escape, _ := json.Marshal(map[string]string{"path": "../outside.txt", "content": "x"})
	res, err := reg.Execute(ctx, "write_file", escape)
	if err == nil {
		if _, statErr := os.Stat(filepath.Join(filepath.Dir(ws), "outside.txt")); statErr == nil {
			log.Fatalf("write_file escaped its workspace: %s", res)
		}
	}
	fmt.Printf("tools ok: %d tools, wrote %q, escape refused\n", len(reg.Definitions()), data)
}
