package telegramtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
)

func TestDirHoldsTheEmulatorProject(t *testing.T) {
	for _, f := range []string{"serve.js", "package.json", "package-lock.json"} {
		if _, err := os.Stat(filepath.Join(telegramtest.Dir(), f)); err != nil {
			t.Errorf("Dir() = %q has no %s: %v", telegramtest.Dir(), f, err)
		}
	}
}
