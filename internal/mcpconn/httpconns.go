package mcpconn

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// connTracker remembers every TCP connection its transport dials so that
// Close can cut them all. Closing idle connections is not enough: the SDK
// may still have a request outstanding with a server that never answers,
// and that request would otherwise hold its connection (and goroutines)
// until the server chooses to reply.
type connTracker struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func newHTTPTransport() (*http.Transport, *connTracker) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	ct := &connTracker{conns: map[net.Conn]struct{}{}}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		ct.mu.Lock()
		defer ct.mu.Unlock()
		if ct.closed {
			c.Close()
			return nil, net.ErrClosed
		}
		tc := &trackedConn{Conn: c, t: ct}
		ct.conns[tc] = struct{}{}
		return tc, nil
	}
	return tr, ct
}

func (ct *connTracker) closeAll() {
	ct.mu.Lock()
	ct.closed = true
	conns := ct.conns
	ct.conns = map[net.Conn]struct{}{}
	ct.mu.Unlock()
	for c := range conns {
		c.(*trackedConn).Conn.Close()
	}
}

type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.t.mu.Lock()
		delete(c.t.conns, c)
		c.t.mu.Unlock()
	})
	return c.Conn.Close()
}
