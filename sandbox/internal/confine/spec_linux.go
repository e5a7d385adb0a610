//go:build linux

package confine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The spec travels as argv entries, one field each, between [Arg] and
// "--": name=value, the names below, a list field repeated once per
// element. An argv entry holds any byte but NUL, as a path does, so
// values are written as they are, except the filter, in base64. The
// helper parses it with a loop over its arguments rather than
// encoding/json, which would be the largest package it links and whose
// first decoding of a type builds the type's field tables: measurable
// in a process that lives a few milliseconds.
const (
	keyDir       = "dir="
	keyNet       = "net="
	keyProxy     = "proxy="
	keyMountSock = "mountsock="
	keyHelperEnv = "helperenv="
	keyEnv       = "env="
	keyBPF       = "bpf="
	keyRW        = "rw="
	keyRO        = "ro="
	// keyMount's value is "<ro|rw>,<fd>,<late|now>,<path>".
	keyMount = "mount="
)

// Args returns the spec as the helper's arguments after [Arg]: the
// fields, then "--".
func (s *Spec) Args() []string {
	a := make([]string, 0, 8+len(s.Mounts)+len(s.RW)+len(s.RO))
	a = append(a, keyDir+s.Dir, keyNet+strconv.FormatBool(s.Network))
	if s.ProxyFD > 0 {
		a = append(a, keyProxy+strconv.Itoa(s.ProxyFD))
	}
	if s.MountSock > 0 {
		a = append(a, keyMountSock+strconv.Itoa(s.MountSock))
	}
	if s.HelperEnv > 0 {
		a = append(a, keyHelperEnv+strconv.Itoa(s.HelperEnv))
	}
	a = append(a, keyBPF+base64.StdEncoding.EncodeToString(s.BPF))
	for _, m := range s.Mounts {
		mode, when := "rw", "now"
		if m.RO {
			mode = "ro"
		}
		if m.Late {
			when = "late"
		}
		a = append(a, keyMount+mode+","+strconv.Itoa(m.FD)+","+when+","+m.Path)
	}
	for _, e := range s.Env {
		a = append(a, keyEnv+e)
	}
	for _, p := range s.RW {
		a = append(a, keyRW+p)
	}
	for _, p := range s.RO {
		a = append(a, keyRO+p)
	}
	return append(a, "--")
}

// ParseArgs reads what [Spec.Args] wrote and returns the spec and the
// command's argv, what follows "--".
func ParseArgs(args []string) (Spec, []string, error) {
	var s Spec
	for i, a := range args {
		if a == "--" {
			if i+1 == len(args) {
				return s, nil, errors.New("no command after --")
			}
			return s, args[i+1:], nil
		}
		if err := s.parse(a); err != nil {
			return s, nil, fmt.Errorf("helper argument %d: %w", i, err)
		}
	}
	return s, nil, errors.New("no -- before the command")
}

// parse sets the field argument a names.
func (s *Spec) parse(a string) error {
	var err error
	switch {
	case strings.HasPrefix(a, keyDir):
		s.Dir = a[len(keyDir):]
	case strings.HasPrefix(a, keyNet):
		s.Network, err = strconv.ParseBool(a[len(keyNet):])
	case strings.HasPrefix(a, keyProxy):
		s.ProxyFD, err = fdNumber(a[len(keyProxy):])
	case strings.HasPrefix(a, keyMountSock):
		s.MountSock, err = fdNumber(a[len(keyMountSock):])
	case strings.HasPrefix(a, keyHelperEnv):
		s.HelperEnv, err = strconv.Atoi(a[len(keyHelperEnv):])
		if err == nil && s.HelperEnv < 0 {
			err = errors.New("negative count")
		}
	case strings.HasPrefix(a, keyBPF):
		s.BPF, err = base64.StdEncoding.DecodeString(a[len(keyBPF):])
	case strings.HasPrefix(a, keyEnv):
		if e := a[len(keyEnv):]; strings.IndexByte(e, '=') > 0 {
			s.Env = append(s.Env, e)
		} else {
			err = errors.New("not NAME=value")
		}
	case strings.HasPrefix(a, keyRW):
		s.RW = append(s.RW, a[len(keyRW):])
	case strings.HasPrefix(a, keyRO):
		s.RO = append(s.RO, a[len(keyRO):])
	case strings.HasPrefix(a, keyMount):
		var m Mount
		m, err = parseMount(a[len(keyMount):])
		s.Mounts = append(s.Mounts, m)
	default:
		return fmt.Errorf("unknown field %.40q", a)
	}
	if err != nil {
		return fmt.Errorf("%.40q: %w", a, err)
	}
	return nil
}

// parseMount reads a mount's "<ro|rw>,<fd>,<late|now>,<path>".
func parseMount(v string) (Mount, error) {
	f := strings.SplitN(v, ",", 4)
	if len(f) != 4 || (f[0] != "ro" && f[0] != "rw") || (f[2] != "late" && f[2] != "now") || !strings.HasPrefix(f[3], "/") {
		return Mount{}, errors.New("not <ro|rw>,<fd>,<late|now>,<absolute path>")
	}
	fd, err := strconv.Atoi(f[1])
	if err != nil || fd < 0 {
		return Mount{}, errors.New("the descriptor is not a number")
	}
	return Mount{Path: f[3], RO: f[0] == "ro", FD: fd, Late: f[2] == "late"}, nil
}

// fdNumber reads a descriptor number, which is above the standard three.
func fdNumber(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 3 {
		return 0, errors.New("not a descriptor number above 2")
	}
	return n, nil
}
