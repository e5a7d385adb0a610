package redact_test

import (
	"fmt"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

func ExampleRedactor_String() {
	r := redact.New("/home/ada")
	fmt.Println(r.String("Authorization: Bearer abc123 from /home/ada/.joshbot/config.json"))
	fmt.Println(r.String("OPENAI_API_KEY=sk-proj-0123456789abcdefghijABCDEFGHIJ"))
	fmt.Println(string(r.JSON([]byte(`{"api_key":"k","note":"fine"}`))))
	// Output:
	// Authorization: Bearer [REDACTED] from ~/.joshbot/config.json
	// OPENAI_API_KEY=[REDACTED]
	// {"api_key":"[REDACTED]","note":"fine"}
}
