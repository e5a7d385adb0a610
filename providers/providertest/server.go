package providertest

import (
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server is a [Handler] running on an httptest server for the length of one
// test. Its scripting methods are the Handler's.
type Server struct {
	*Handler

	srv *httptest.Server
	tb  testing.TB

	mu        sync.Mutex
	finished  bool
	closeOnce sync.Once
}

// NewServer starts a fake provider for tb. An unscripted request fails the
// test through tb.Errorf (and gets a 500); the server closes when the test
// ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{Handler: NewHandler(), tb: tb}
	s.Handler.report = s.report
	s.srv = httptest.NewServer(s.Handler)
	tb.Cleanup(s.Close)
	return s
}

// URL returns the API root, ending in "/v1", to use as
// [providers.ClientOptions.BaseURL].
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server, first releasing requests held by [Reply.Delay].
// NewServer arranges for it to run at the end of the test; calling it
// earlier is allowed.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.finished = true
		s.mu.Unlock()
		s.Handler.Close()
		s.srv.Close()
	})
}

// report fails the test, unless the test is over: calling Errorf then would
// panic, and a handler goroutine can outlive the test that started it.
func (s *Server) report(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		slog.Error(msg, "test", s.tb.Name())
		return
	}
	s.tb.Errorf("%s", msg)
}
