package mcpconn_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestHTTPFailures: streamable-HTTP endpoints that are gone, answer with
// something other than MCP, or never answer.
func TestHTTPFailures(t *testing.T) {
	// A loopback port with nothing listening.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + l.Addr().String() + "/mcp"
	l.Close()

	handlers := map[string]http.HandlerFunc{
		"not mcp": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>hello</html>"))
		},
		"server error": func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		},
		// Ends only when the client goes away: if mcpconn left its
		// request open, hs.Close below would block and the test time out.
		"never answers": func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // lets the server notice a hang-up
			<-r.Context().Done()
		},
	}
	cases := []struct {
		name string
		want error
	}{
		{"nothing listening", mcpconn.ErrServerExited},
		{"not mcp", mcpconn.ErrProtocol},
		{"server error", mcpconn.ErrProtocol},
		{"never answers", mcpconn.ErrTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			url := closedURL
			if h, ok := handlers[tc.name]; ok {
				hs := httptest.NewServer(h)
				defer func() {
					hs.CloseClientConnections()
					hs.Close()
				}()
				url = hs.URL
			}
			opts := mcpconn.DefaultOptions()
			// A short deadline only where it is the expected outcome; the
			// other endpoints answer (or refuse) and must be judged by
			// what they send, however loaded the machine is.
			if tc.want == mcpconn.ErrTimeout {
				opts.ConnectTimeout = time.Second
			}
			_, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "web", URL: url}, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestHTTPCloseWithSilentServer: a server that serves the session but
// never answers the DELETE that ends it must not hold Close (or leave a
// request goroutine behind).
func TestHTTPCloseWithSilentServer(t *testing.T) {
	testkit.CheckGoroutines(t)
	srv := echoServer()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			<-r.Context().Done()
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer func() {
		hs.CloseClientConnections()
		hs.Close()
		// The DELETE never reached the handler, so end the server's side
		// of the session here; the leak check is about the client.
		for ss := range srv.Sessions() {
			ss.Close()
		}
	}()
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "web", URL: hs.URL}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, _, err := c.ListTools(context.Background()); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
