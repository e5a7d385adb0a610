package config

import (
	"time"
)

// Tuning is the "tuning" block: automatic adjustment of the web tools'
// per-operation timeouts from the timeouts and successes they record. Off
// by default, because a timeout that grows by itself should be something
// an operator asked for.
type Tuning struct {
	// Enabled turns recording and the overlay on.
	Enabled bool `json:"enabled,omitempty"`
	// MaxBump caps how far an operation's timeout may be raised above its
	// configured value; zero means 30s.
	MaxBump Duration `json:"max_bump,omitzero"`
	// Step is one raise (or lowering); zero means 5s.
	Step Duration `json:"step,omitzero"`
	// Cooldown is the least time between two changes of one operation;
	// zero means 1h.
	Cooldown Duration `json:"cooldown,omitzero"`
}

// The tuning defaults.
const (
	DefaultTuningMaxBump  = 30 * time.Second
	DefaultTuningStep     = 5 * time.Second
	DefaultTuningCooldown = time.Hour
)

// Effective returns the block with zero values replaced by the defaults.
func (t Tuning) Effective() Tuning {
	if t.MaxBump == 0 {
		t.MaxBump = Duration(DefaultTuningMaxBump)
	}
	if t.Step == 0 {
		t.Step = Duration(DefaultTuningStep)
	}
	if t.Cooldown == 0 {
		t.Cooldown = Duration(DefaultTuningCooldown)
	}
	return t
}

func (t Tuning) validate() error {
	for _, kd := range []struct {
		key string
		d   Duration
	}{{"tuning.max_bump", t.MaxBump}, {"tuning.step", t.Step}, {"tuning.cooldown", t.Cooldown}} {
		if err := checkDuration(kd.key, kd.d); err != nil {
			return err
		}
	}
	e := t.Effective()
	if e.Step > e.MaxBump {
		return ordinary(errorf("tuning.step (%s) is larger than tuning.max_bump (%s): make the step smaller or the cap larger", e.Step.Std(), e.MaxBump.Std()))
	}
	return nil
}
