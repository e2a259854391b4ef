package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// ServerTools is one server's tool list inside a multi-server session; the
// server identity stays attached so same-named tools on different servers
// are never confused.
type ServerTools struct {
	Server string
	Info   ServerInfo
	Tools  []catalog.Tool
	Raw    json.RawMessage
}

// Session groups the connections an agent uses together.
type Session struct {
	mu    sync.Mutex
	conns []*Conn
}

// NewSession returns an empty session.
func NewSession() *Session { return &Session{} }

// Add puts c into the session; the session then owns it and closes it.
func (s *Session) Add(c *Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns = append(s.conns, c)
}

// Conns returns the session's connections in the order they were added.
func (s *Session) Conns() []*Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Conn(nil), s.conns...)
}

// Conn returns the connection whose Name is name, or nil.
func (s *Session) Conn(name string) *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// ListAll lists every server's tools concurrently. Results keep the order
// of Conns. If some servers fail, the others' lists are still returned
// alongside the joined errors (each naming its server).
func (s *Session) ListAll(ctx context.Context) ([]ServerTools, error) {
	conns := s.Conns()
	out := make([]ServerTools, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			tools, raw, err := c.ListTools(ctx)
			out[i] = ServerTools{Server: c.Name(), Info: c.ServerInfo(), Tools: tools, Raw: raw}
			errs[i] = err
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// Catalog turns listed tools into a catalog for the scanner.
func Catalog(lists []ServerTools) *catalog.Catalog {
	cat := &catalog.Catalog{}
	for _, l := range lists {
		tools := l.Tools
		if tools == nil {
			tools = []catalog.Tool{}
		}
		cat.Servers = append(cat.Servers, catalog.Server{
			Name:         l.Server,
			Version:      l.Info.Version,
			Instructions: l.Info.Instructions,
			Tools:        tools,
		})
	}
	return cat
}

// Close closes every connection concurrently (each may need its grace
// period) and joins their errors.
func (s *Session) Close() error {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
