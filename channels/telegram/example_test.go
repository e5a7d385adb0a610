package telegram_test

import (
	"fmt"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

func ExampleValidateAPIURL() {
	fmt.Println(telegram.ValidateAPIURL(""))
	fmt.Println(telegram.ValidateAPIURL("http://127.0.0.1:8081"))
	fmt.Println(telegram.ValidateAPIURL("ftp://bots.example.com"))
	// Output:
	// <nil>
	// <nil>
	// telegram: Options.APIURL "ftp://bots.example.com" must start with http:// or https://
}

func Example_markdownToHTML() {
	fmt.Println(telegram.RenderHTML("**Done**: `go test` passed for my_module & friends", nil))
	// Output:
	// <b>Done</b>: <code>go test</code> passed for my_module &amp; friends
}

func ExampleNew() {
	tg, err := telegram.New(&telegram.Options{Token: "123:ABC", APIURL: "http://127.0.0.1:8081"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tg.Name(), tg.Limits() == channels.TelegramAttachmentLimitsFor("http://127.0.0.1:8081"))
	// Output: telegram true
}
