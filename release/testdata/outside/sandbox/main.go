// Command sandbox is an outside program that imports the published sandbox
// module: a confined command that may write its workspace and nothing else.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/sandbox"
)

func main() {
	sandbox.RunHelperIfRequested() // first: the Linux helper re-executes this binary
	ws, err := os.MkdirTemp("", "outside-sandbox-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(ws)
	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil)
	if err != nil {
		log.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-outside")
	defer os.Remove(outside)
	line := "echo confined > in.txt; cat in.txt; echo escaped > " + outside + " 2>/dev/null; true"
	cmd, cleanup, err := sb.Command(context.Background(), ws, []string{"/bin/sh", "-c", line}, sandbox.ChildEnv(os.Environ(), nil))
	if err != nil {
		log.Fatal(err)
	}
	defer cleanup()
	out, err := cmd.CombinedOutput()
	if err != nil {
		log.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(outside); err == nil {
		log.Fatal("the command wrote outside its workspace")
	}
	fmt.Println("sandbox ok:", strings.Join(strings.Fields(string(out)), " ")+"; the host path outside the workspace is untouched")
}
