package runtime

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/agent/skills"
)

// maxPersonalityBytes caps one personality file: it is in every prompt of
// a conversation that picked it.
const maxPersonalityBytes = 4 << 10

// loadPersonalities reads workspace/personalities/<name>.md, which add to
// (or replace) the built-in personalities /personality offers. A missing
// directory means none; an unusable file is skipped with a warning naming
// it, so one bad file does not stop joshbot.
func loadPersonalities(ws string, log *slog.Logger) map[string]string {
	dir := filepath.Join(ws, "personalities")
	ents, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("personalities not loaded", "dir", dir, "err", err)
		}
		return nil
	}
	out := map[string]string{}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if !skills.ValidName(name) {
			log.Warn("personality skipped: use a lowercase name with dashes", "file", e.Name())
			continue
		}
		text, err := readCapped(filepath.Join(dir, e.Name()), maxPersonalityBytes)
		if err != nil {
			log.Warn("personality skipped", "file", e.Name(), "err", err)
			continue
		}
		out[name] = strings.TrimSpace(text)
	}
	return out
}

func readCapped(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", errorf("over %d KiB", limit>>10)
	}
	return string(b), nil
}
