package mcpclient

import (
	"context"
	"fmt"
	"time"
)

// suspect records that a call on connection a got no answer within its
// bound (why says so): the next call checks the server before using it.
func (s *server) suspect(a *attempt, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.cur != a || s.state != StateTrusted {
		return
	}
	s.state, s.reason, s.lastErr = StateSuspect, why+"; the next call checks it", why
	s.logger().Warn("mcp server did not answer a call in time; the next call checks it", "why", why)
}

// pruneRestarts drops restarts that have left the window and returns the
// rest. s.mu is held.
func (s *server) pruneRestarts() []time.Time {
	cutoff := s.m.now().Add(-s.m.window)
	i := 0
	for i < len(s.restartLog) && !s.restartLog[i].After(cutoff) {
		i++
	}
	s.restartLog = s.restartLog[i:]
	return s.restartLog
}

// startHeal starts checking a suspect server (or restarting one whose
// restart budget has come back) in the background and returns the channel
// closed when that is done. s.mu is held.
func (s *server) startHeal() chan struct{} {
	ch := make(chan struct{})
	s.healing = ch
	a := s.cur
	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		s.heal(a)
		s.mu.Lock()
		s.healing = nil
		s.mu.Unlock()
		close(ch)
	}()
	return ch
}

// heal pings connection a (nil when the server is down): a server that
// answers within the health bound is kept; otherwise, budget permitting,
// its process group is killed and it is started again, and it must
// advertise the manifest it had, or it is revoked.
func (s *server) heal(a *attempt) {
	if a != nil {
		ctx, cancel := context.WithTimeout(s.m.ctx, s.m.health)
		err := a.sess.Ping(ctx, nil)
		cancel()
		s.mu.Lock()
		if s.closing || s.cur != a {
			s.mu.Unlock()
			return
		}
		if err == nil {
			s.state, s.reason = StateTrusted, ""
			s.mu.Unlock()
			s.logger().Info("mcp server answered its health check; kept")
			return
		}
		s.lastErr = fmt.Sprintf("no answer to a health check within %s after: %s", s.m.health, s.lastErr)
		s.mu.Unlock()
	}

	s.mu.Lock()
	if s.closing || s.cur != a {
		s.mu.Unlock()
		return
	}
	now := s.m.now()
	if used := s.pruneRestarts(); len(used) >= s.m.budget {
		s.retryAt = used[0].Add(s.m.window)
		s.state, s.cur = StateFailed, nil
		s.reason = fmt.Sprintf("%s; it was restarted %d times in %s (the restart budget), so it stays down until %s",
			s.lastErr, len(used), s.m.window, s.retryAt.Format(time.TimeOnly))
		s.mu.Unlock()
		s.logger().Error("mcp server is down and its restart budget is used up", "retry_at", s.retryAt, "last_error", s.lastErr)
		if a != nil {
			a.kill()
		}
		return
	}
	s.restartLog = append(s.restartLog, now)
	s.retryAt = time.Time{}
	s.state, s.reason, s.cur = StateRestarting, s.lastErr+"; restarting", nil
	s.mu.Unlock()
	s.logger().Warn("mcp server restarting", "last_error", s.lastErr)
	if a != nil {
		a.kill()
	}

	na, man, err := s.dial(s.m.ctx)
	if err != nil {
		s.mu.Lock()
		if !s.closing {
			s.lastErr = "its restart failed: " + err.Error()
			// The next call may try again while the budget lasts.
			s.state, s.reason, s.retryAt = StateFailed, s.lastErr, s.m.now()
		}
		s.mu.Unlock()
		s.logger().Error("mcp server restart failed", "err", err)
		return
	}
	if man.Hash() != s.hash {
		s.revokeChanged(na, man, "after its restart")
		return
	}
	if !s.adopt(na, StateTrusted, "") {
		na.close()
		return
	}
	s.logger().Info("mcp server restarted")
}
