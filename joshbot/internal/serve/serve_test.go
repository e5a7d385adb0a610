package serve

import (
	"errors"
	"fmt"
	"testing"

	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/providers"
)

// TestServeUnreachableProvider: a provider that cannot be dialled is
// recognised by its typed error, not by its wording.
func TestServeUnreachableProvider(t *testing.T) {
	err := fmt.Errorf("agent: %w", &providers.TransportError{Provider: "custom", Op: "chat/completions", Err: errors.New("connection refused")})
	var apiErr *apiserver.Error
	if !errors.As((&agentAdapter{provider: "custom"}).publicError(err), &apiErr) || apiErr.Status != 502 || apiErr.Message != "LLM provider custom could not be reached" {
		t.Fatalf("publicError = %+v", apiErr)
	}
}
