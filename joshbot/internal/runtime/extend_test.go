package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
)

func TestProviderStatusLines(t *testing.T) {
	a := &Runtime{Health: providers.NewHealth(nil)}
	if got := a.providerStatus(); len(got) != 1 || got[0] != "Providers: no failures recorded" {
		t.Fatalf("healthy: %v", got)
	}
	a.Health.Failure("groq", errors.New("HTTP 429: slow down"), time.Minute)
	got := a.providerStatus()
	if len(got) != 1 || !strings.Contains(got[0], "Provider groq: 1 consecutive failures, cooling down 1m0s") || !strings.Contains(got[0], "slow down") {
		t.Fatalf("failing: %v", got)
	}
}
