//go:build !linux

package sandbox

import "context"

// Prestart does nothing here: only the Linux sandbox starts a helper per
// command.
func (s *Sandbox) Prestart() {}

// Close does nothing here and returns nil: only the Linux sandbox keeps a
// helper started ahead of time.
func (s *Sandbox) Close() error { return nil }

// start is [Sandbox.Start] through [Sandbox.Command] and os/exec.
func (s *Sandbox) start(ctx context.Context, c *Cmd) (*Process, error) {
	cmd, cleanup, err := s.Command(ctx, c.Dir, c.Args, c.Env)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = c.Output, c.Output
	cmd.WaitDelay = outputGrace
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, err
	}
	p := &Process{signal: cmd.Process.Signal}
	p.wait = func() (int, error) {
		defer cleanup()
		return exitStatus(ctx, cmd.Wait(), cmd.ProcessState)
	}
	return p, nil
}
