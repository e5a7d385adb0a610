package cron

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sync"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// ChatIDs remembers the last chat seen on each channel (chat_ids.json,
// 0600, atomic writes), so a reminder fired after a restart still knows
// where to go. It is safe for concurrent use within one process.
type ChatIDs struct {
	path string
	mu   sync.Mutex
	m    map[string]string
}

// OpenChatIDs reads path; a missing file is empty. An unreadable file is an
// error naming it.
func OpenChatIDs(path string) (*ChatIDs, error) {
	c := &ChatIDs{path: path, m: map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, errorf("chat ids: %w", err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &c.m); err != nil {
			return nil, errorf("chat ids: %s does not parse (%v): fix or remove it; it is rebuilt from the next messages", path, err)
		}
	}
	return c, nil
}

// Last returns the last chat seen on channel.
func (c *ChatIDs) Last(channel string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.m[channel]
	return id, ok
}

// Record notes chatID as the last chat of channel, writing the file only
// when it changed.
func (c *ChatIDs) Record(channel, chatID string) error {
	if channel == "" || chatID == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[channel] == chatID {
		return nil
	}
	old, had := c.m[channel]
	c.m[channel] = chatID
	data, err := json.MarshalIndent(c.m, "", "  ")
	if err == nil {
		err = config.WriteFileAtomic(c.path, append(data, '\n'))
	}
	if err != nil {
		if had {
			c.m[channel] = old
		} else {
			delete(c.m, channel)
		}
		return errorf("chat ids: %w", err)
	}
	return nil
}
