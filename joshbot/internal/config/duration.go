package config

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that reads the forms people write in a config
// file: a duration string ("600s", "10m", "1h30m") or a bare number of
// seconds (600). It always writes the string form.
//
// A bare integer of at least one second's worth of nanoseconds (1e9) is
// read as nanoseconds, because that is what a plain time.Duration field
// wrote; read as seconds it would be over thirty years, so the two ranges
// cannot be confused in practice. The zero Duration means "use the
// default".
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d the way it is written back, e.g. "2m0s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a bare number.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*d = 0
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		return d.UnmarshalText([]byte(str))
	}
	return d.parseNumber(s)
}

// UnmarshalText reads a duration string, or a number of seconds written as
// text (as environment variables carry it).
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		*d = 0
		return nil
	}
	if v, err := time.ParseDuration(s); err == nil {
		*d = Duration(v)
		return nil
	}
	if err := d.parseNumber(s); err == nil {
		return nil
	}
	return errorf("%q is not a duration: write it like \"90s\", \"10m\" or \"1h30m\", or as a number of seconds", s)
}

func (d *Duration) parseNumber(s string) error {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return errorf("duration %s is negative", s)
		}
		if n >= int64(time.Second) {
			*d = Duration(n) // legacy nanoseconds
		} else {
			*d = Duration(time.Duration(n) * time.Second)
		}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > float64(int64(time.Second)) {
		return errorf("%q is not a duration: write it like \"90s\", \"10m\" or \"1h30m\", or as a number of seconds", s)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}
