package config

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// Save writes c to path atomically and durably ([WriteFileAtomic]) with
// mode 0600, creating the directory with mode
// 0700. The file holds credentials, so no other user may read it.
func Save(path string, c *Config) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return errorf("encode config: %w", err)
	}
	data = append(data, '\n')
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic replaces path with data durably through package
// atomicfile (a temp file in the same directory, file sync, rename,
// directory sync), so a reader, or the program after a crash, sees either
// the old file or the new one, never a torn mix. The file is 0600 and its
// directory 0700.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errorf("create %s: %w", dir, err)
	}
	return atomicfile.WriteFile(path, data, 0o600)
}
