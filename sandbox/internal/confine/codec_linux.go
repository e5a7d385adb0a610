//go:build linux

package confine

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// requestMagic opens an encoded [Request]; its last byte is the format's
// version.
const requestMagic = "jbr\x01"

// AppendRequest appends r to b in the helper's encoding: the magic, then
// each field in a fixed order, a string or byte slice as its length
// (uvarint) and bytes, a list as its count and items, a flag as one byte
// and a number as a uvarint. The helper reads it with nothing but this
// package, where encoding/json's reflection cost each helper's start some
// eighty page faults.
func AppendRequest(b []byte, r *Request) []byte {
	b = append(b, requestMagic...)
	sp := &r.Spec
	b = appendStr(b, sp.Dir)
	b = appendBool(b, sp.Network)
	b = binary.AppendUvarint(b, uint64(sp.ProxyFD))
	b = binary.AppendUvarint(b, uint64(sp.HelperEnv))
	b = appendList(b, sp.Env)
	b = appendStr(b, string(sp.BPF))
	b = appendList(b, sp.RW)
	b = appendList(b, sp.RO)
	b = binary.AppendUvarint(b, uint64(len(sp.Mounts)))
	for _, m := range sp.Mounts {
		b = appendStr(b, m.Path)
		b = appendBool(b, m.RO)
		b = binary.AppendUvarint(b, uint64(m.FD))
	}
	b = appendList(b, r.Argv)
	return appendList(b, r.Env)
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendList(b []byte, l []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = appendStr(b, s)
	}
	return b
}

// errMalformed is what a request that does not decode gets.
var errMalformed = errors.New("helper given a malformed request")

// decoder reads what AppendRequest wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errMalformed
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a number that must fit an int (a count, a descriptor).
func (d *decoder) int() int {
	v := d.uint()
	if v > 1<<30 {
		d.err = errMalformed
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.int()
	if d.err != nil || n > len(d.b) {
		d.err = errMalformed
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool {
	if d.err != nil || len(d.b) == 0 || d.b[0] > 1 {
		d.err = errMalformed
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) list() []string {
	n := d.int()
	// Each item takes at least a byte: a count past what is left is a lie.
	if d.err != nil || n > len(d.b) {
		d.err = errMalformed
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

// DecodeRequest reads a request AppendRequest encoded.
func DecodeRequest(b []byte) (*Request, error) {
	if len(b) < len(requestMagic) || string(b[:len(requestMagic)]) != requestMagic {
		return nil, fmt.Errorf("%w: not this helper's encoding", errMalformed)
	}
	d := &decoder{b: b[len(requestMagic):]}
	r := &Request{}
	sp := &r.Spec
	sp.Dir = d.str()
	sp.Network = d.bool()
	sp.ProxyFD = d.int()
	sp.HelperEnv = d.int()
	sp.Env = d.list()
	sp.BPF = []byte(d.str())
	sp.RW = d.list()
	sp.RO = d.list()
	n := d.int()
	if d.err == nil && n > len(d.b) {
		d.err = errMalformed
	}
	if d.err == nil {
		sp.Mounts = make([]Mount, n)
		for i := range sp.Mounts {
			sp.Mounts[i] = Mount{Path: d.str(), RO: d.bool(), FD: d.int()}
		}
	}
	r.Argv = d.list()
	r.Env = d.list()
	if d.err == nil && len(d.b) != 0 {
		d.err = errMalformed
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}
