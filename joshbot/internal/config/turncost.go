package config

// Bounds of agents.defaults.max_message_bytes. The upper bound stays well
// under what one session line may hold (16 MiB).
const (
	DefaultMaxMessageBytes = 256 << 10
	MinMessageBytes        = 1 << 10
	MaxMessageBytes        = 8 << 20
)

// Bounds of agents.defaults.context_window, in tokens.
const (
	MinContextWindow = 1024
	MaxContextWindow = 10_000_000
)

// validateTurnCost checks the keys that bound what a turn costs: the
// message cap, the context window, refused repeats and the first-byte
// timeouts.
func (c *Config) validateTurnCost() error {
	d := &c.Agents.Defaults
	if n := d.MaxMessageBytes; n != 0 && (n < MinMessageBytes || n > MaxMessageBytes) {
		return ordinary(errorf("agents.defaults.max_message_bytes is %d: use %d to %d, or 0 for the default of %d (256 KiB)", n, MinMessageBytes, MaxMessageBytes, DefaultMaxMessageBytes))
	}
	if n := d.ContextWindow; n != 0 && (n < MinContextWindow || n > MaxContextWindow) {
		return ordinary(errorf("agents.defaults.context_window is %d: use the model's window in tokens (%d to %d), or 0 for the known one", n, MinContextWindow, MaxContextWindow))
	}
	if d.MaxRefusedRepeats < -1 {
		return ordinary(errorf("agents.defaults.max_refused_repeats is %d: use a positive number, 0 for the default of 2, or -1 to never end a turn for it", d.MaxRefusedRepeats))
	}
	if err := checkDuration("agents.defaults.first_byte_timeout", d.FirstByteTimeout); err != nil {
		return err
	}
	for _, name := range c.providerNames() {
		if err := checkDuration("providers."+name+".first_byte_timeout", c.Providers[name].FirstByteTimeout); err != nil {
			return err
		}
	}
	return nil
}
