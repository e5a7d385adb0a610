package commands_test

import (
	"fmt"

	"github.com/joshbot/joshbot/agent/commands"
)

func ExampleParse() {
	name, args, ok := commands.Parse("/model gpt-4o --global")
	fmt.Println(name, args, ok)
	_, _, ok = commands.Parse("/etc/hosts is odd")
	fmt.Println(ok)
	// Output:
	// model [gpt-4o --global] true
	// false
}

func ExampleComplete() {
	fmt.Println(commands.Complete("/p"))
	// Output: [/personality]
}
