package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/tools"
)

// A registry with the filesystem tools, confined to one workspace: the
// definitions go to the model, and a call runs by name. A path that leaves
// the workspace is refused, whatever the model says.
func ExampleRegistry() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy milk\n"), 0o600)

	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		panic(err)
	}
	fmt.Println(reg.Names())
	defs, _ := json.Marshal(reg.Definitions()[:1])
	fmt.Println(len(defs) > 0)

	ctx := context.Background()
	out, err := reg.Execute(ctx, "list_dir", json.RawMessage(`{"path":"."}`))
	fmt.Println(out)
	fmt.Println(err)
	_, err = reg.Execute(ctx, "read_file", json.RawMessage(`{"path":"../../etc/passwd"}`))
	fmt.Println(err != nil)
	// Output:
	// [edit_file glob grep list_dir read_file write_file]
	// true
	// . (1 entry)
	// notes.txt  9 bytes
	//
	// <nil>
	// true
}
