//go:build linux

package confine

import (
	"reflect"
	"testing"
)

func sampleRequest() *Request {
	return &Request{
		Spec: Spec{
			Mounts:  []Mount{{Path: "/srv/ro", RO: true, FD: 4}, {Path: "/srv/ws"}, {Path: "/srv/ws/sub dir", FD: 1 << 20}},
			Dir:     "/srv/ws",
			RW:      []string{"/srv/ws", "/tmp", "/dev/shm"},
			RO:      []string{"/usr", ""},
			Network: true,
			ProxyFD: 7,
			Env:     []string{"GOMAXPROCS=3"},
			BPF:     []byte{0, 1, 2, 0xff, 0, 0, 0, 0x80},
		},
		Argv: []string{"/bin/sh", "-c", "echo 'ü\x00'"},
		Env:  []string{"PATH=/usr/bin", "EMPTY="},
	}
}

func TestRequestRoundTrip(t *testing.T) {
	for _, r := range []*Request{sampleRequest(), {Spec: Spec{BPF: []byte{}}, Argv: []string{}, Env: []string{}}} {
		got, err := DecodeRequest(AppendRequest(nil, r))
		if err != nil {
			t.Fatal(err)
		}
		// Empty lists come back empty, not nil, and the reverse.
		norm := func(r *Request) {
			for _, l := range []*[]string{&r.Spec.RW, &r.Spec.RO, &r.Spec.Env, &r.Argv, &r.Env} {
				if len(*l) == 0 {
					*l = nil
				}
			}
			if len(r.Spec.Mounts) == 0 {
				r.Spec.Mounts = nil
			}
			if len(r.Spec.BPF) == 0 {
				r.Spec.BPF = nil
			}
		}
		norm(got)
		want := *r
		norm(&want)
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, &want)
		}
	}
}

// TestDecodeRefusesMalformed: every truncation, a trailing byte, a bad
// flag and a length past the end are refused, never read past.
func TestDecodeRefusesMalformed(t *testing.T) {
	b := AppendRequest(nil, sampleRequest())
	for n := range len(b) {
		if _, err := DecodeRequest(b[:n]); err == nil {
			t.Fatalf("a request cut to %d of %d bytes was accepted", n, len(b))
		}
	}
	if _, err := DecodeRequest(append(b[:len(b):len(b)], 0)); err == nil {
		t.Fatal("a trailing byte was accepted")
	}
	bad := append([]byte(nil), b...)
	bad[len(requestMagic)+1+len("/srv/ws")] = 2 // the network flag
	if _, err := DecodeRequest(bad); err == nil {
		t.Fatal("a flag of 2 was accepted")
	}
	if _, err := DecodeRequest([]byte(requestMagic + "\xff\xff\xff\xff\x0f")); err == nil {
		t.Fatal("a length past the end was accepted")
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add(AppendRequest(nil, sampleRequest()))
	f.Add([]byte(requestMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b)
		if err != nil {
			return
		}
		// What decodes encodes to bytes that decode the same.
		again, err := DecodeRequest(AppendRequest(nil, r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("%q decoded as %+v, re-encoded as %+v (%v)", b, r, again, err)
		}
	})
}
