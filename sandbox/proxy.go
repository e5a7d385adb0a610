package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// serveProxyConn serves one connection from a confined command as an
// HTTP proxy: CONNECT host:port tunnels, and plain http:// requests are
// forwarded, each through d, whose Control is the address guard.
func serveProxyConn(ctx context.Context, c net.Conn, d *net.Dialer) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	target := req.Host
	if req.Method != http.MethodConnect {
		if req.URL.Scheme != "http" || req.URL.Host == "" {
			proxyRefuse(c, "400 Bad Request", "the sandbox proxy takes CONNECT and absolute http:// requests only")
			return
		}
		target = req.URL.Host
		if _, _, err := net.SplitHostPort(target); err != nil {
			target = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	}
	up, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		proxyRefuse(c, "403 Forbidden", err.Error())
		return
	}
	defer up.Close()
	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		relay(c, br, up)
		return
	}
	req.RequestURI = ""
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	req.Close = true
	if err := req.Write(up); err != nil {
		return
	}
	io.Copy(c, up)
}

func proxyRefuse(c net.Conn, status, msg string) {
	body := "sandbox proxy: " + msg + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, len(body), body)
}

// relay copies both ways until either side ends.
func relay(c net.Conn, fromC io.Reader, up net.Conn) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(up, fromC)
		if tc, ok := up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	io.Copy(c, up)
	c.Close()
	up.Close()
	wg.Wait()
}
