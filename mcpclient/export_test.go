package mcpclient

import "time"

// setAfter replaces the clock restarts wait on.
func (m *Manager) setAfter(f func(time.Duration) <-chan time.Time) { m.after = f }
