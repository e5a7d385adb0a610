//go:build linux

package sandbox

import (
	"context"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/joshbot/joshbot/sandbox/egress"
	"golang.org/x/sys/unix"
)

// maxProxyConns bounds the connections one command may have open
// through the proxy at once.
const maxProxyConns = 64

// startProxy starts the parent's side of a command's network: it returns
// the end of a socket pair to hand the helper, over which the helper sends
// each connection the command makes to its loopback proxy address; every
// connection is served here, dialling through [egress.Control]. stop closes
// the pair and every connection still open.
func startProxy(allow func(netip.AddrPort) bool) (child *os.File, stop func(), err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	parent := os.NewFile(uintptr(fds[0]), "sandbox-proxy")
	child = os.NewFile(uintptr(fds[1]), "sandbox-proxy-child")
	fc, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		child.Close()
		return nil, nil, err
	}
	ctl := fc.(*net.UnixConn)
	ctx, cancel := context.WithCancel(context.Background())
	d := &net.Dialer{Timeout: 30 * time.Second, Control: egress.Control(allow)}
	var mu sync.Mutex
	conns := map[net.Conn]struct{}{}
	go func() {
		buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(4*8))
		for {
			_, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
			if err != nil || oobn == 0 {
				return
			}
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				continue
			}
			for _, m := range msgs {
				fds, err := unix.ParseUnixRights(&m)
				if err != nil {
					continue
				}
				for _, fd := range fds {
					f := os.NewFile(uintptr(fd), "sandbox-proxied")
					c, err := net.FileConn(f)
					f.Close()
					if err != nil {
						continue
					}
					mu.Lock()
					if ctx.Err() != nil || len(conns) >= maxProxyConns {
						mu.Unlock()
						if ctx.Err() == nil {
							proxyRefuse(c, "503 Service Unavailable", "too many connections at once from one command")
						}
						c.Close()
						continue
					}
					conns[c] = struct{}{}
					mu.Unlock()
					go func() {
						serveProxyConn(ctx, c, d)
						mu.Lock()
						delete(conns, c)
						mu.Unlock()
					}()
				}
			}
		}
	}()
	stop = func() {
		mu.Lock()
		cancel()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		ctl.Close()
	}
	return child, stop, nil
}
