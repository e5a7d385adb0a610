package term_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/term"
)

// echo is a Turner that answers each line by repeating it.
type echo struct{}

func (echo) Turn(_ context.Context, t *term.Turn) error {
	fmt.Printf("you said: %s\n", t.Text)
	return nil
}

// A conversation on piped input: blank lines are skipped and "exit" ends
// it.
func ExampleRun() {
	err := term.Run(context.Background(), echo{}, &term.Options{
		In:         strings.NewReader("hello\n\nhow are you?\nexit\nnever read\n"),
		Out:        os.Stdout,
		Interrupts: make(chan os.Signal), // no Ctrl-C in an example
	})
	fmt.Println("err:", err)
	// Output:
	// you said: hello
	// you said: how are you?
	// err: <nil>
}

func ExamplePrintable() {
	fmt.Println(term.Printable("rm -rf build"))
	fmt.Println(term.Printable("echo \x1b[2Jgone"))
	// Output:
	// rm -rf build
	// "echo \x1b[2Jgone"
}
