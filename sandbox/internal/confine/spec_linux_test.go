//go:build linux

package confine

import (
	"reflect"
	"strings"
	"testing"
)

// TestSpecArgsRoundTrip writes specs as the helper's arguments and reads
// them back, with paths holding the bytes the encoding must carry as
// they are: commas, "=", spaces, newlines, "--".
func TestSpecArgsRoundTrip(t *testing.T) {
	for _, s := range []Spec{
		{Dir: "/w", BPF: []byte{}},
		{
			Mounts: []Mount{
				{Path: "/ro,dir", RO: true, FD: 4},
				{Path: "/w s\nx=y,--", FD: 0, Late: true},
				{Path: "/--", Late: true},
			},
			Dir: "/w s\nx=y,--/sub", RW: []string{"/tmp", "/a=b"}, RO: []string{"/usr", "/dev"},
			Network: true, ProxyFD: 7, MountSock: 8, HelperEnv: 1, Env: []string{"GOMAXPROCS=7", "A=b=c\n"},
			BPF: []byte{0, 1, 2, 255, '\n', ','},
		},
	} {
		args := append(s.Args(), "/bin/sh", "-c", "--")
		got, argv, err := ParseArgs(args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("read back %+v, wrote %+v", got, s)
		}
		if !reflect.DeepEqual(argv, []string{"/bin/sh", "-c", "--"}) {
			t.Fatalf("command %q", argv)
		}
	}
}

// TestParseArgsRefusesMalformed: a helper given arguments it cannot read
// runs nothing; each refusal names the argument.
func TestParseArgsRefusesMalformed(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"dir=/w"}, "no -- before the command"},
		{[]string{"dir=/w", "--"}, "no command after --"},
		{[]string{"color=blue", "--", "true"}, "unknown field"},
		{[]string{"net=maybe", "--", "true"}, `"net=maybe"`},
		{[]string{"proxy=2", "--", "true"}, "descriptor number above 2"},
		{[]string{"mountsock=x", "--", "true"}, "descriptor number above 2"},
		{[]string{"helperenv=-1", "--", "true"}, "negative"},
		{[]string{"bpf=!!", "--", "true"}, `"bpf=!!"`},
		{[]string{"env=NOVALUE", "--", "true"}, "not NAME=value"},
		{[]string{"mount=rw,3,now,relative", "--", "true"}, "absolute path"},
		{[]string{"mount=rx,3,now,/w", "--", "true"}, "<ro|rw>"},
		{[]string{"mount=rw,x,now,/w", "--", "true"}, "descriptor is not a number"},
		{[]string{"mount=rw,3,soon,/w", "--", "true"}, "<late|now>"},
	} {
		_, _, err := ParseArgs(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}

// FuzzSpecArgs: any spec whose strings hold no NUL (an argument cannot)
// reads back as written.
func FuzzSpecArgs(f *testing.F) {
	f.Add("/w", "/a,b", "/c=d", []byte{1, 2}, true, 5)
	f.Fuzz(func(t *testing.T, dir, p1, p2 string, bpf []byte, network bool, fd int) {
		if strings.ContainsRune(dir+p1+p2, 0) || fd < 3 {
			return
		}
		s := Spec{
			Mounts: []Mount{{Path: "/" + p1, RO: network, FD: fd, Late: !network}},
			Dir:    dir, RW: []string{p2}, RO: []string{p1}, Network: network, ProxyFD: fd, BPF: bpf,
		}
		if s.BPF == nil {
			s.BPF = []byte{}
		}
		got, argv, err := ParseArgs(append(s.Args(), "x"))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) || len(argv) != 1 {
			t.Fatalf("read back %+v %q, wrote %+v", got, argv, s)
		}
	})
}
