package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// id builds a request id the way a decoded one looks.
func id(v any) jsonrpc.ID {
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return i
}

func pipeConn(t *testing.T, input string) (*lineConn, *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		io.WriteString(outW, input)
		outW.Close()
	}()
	c := &lineConn{lines: newLineReader(outR, 1<<20), rc: outR, wc: inW}
	t.Cleanup(func() {
		c.Close()
		inR.Close()
	})
	return c, inR
}

func TestLineConnDecodes(t *testing.T) {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"nope"}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"ping","id":9}]`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
	}, "\n") + "\n"
	c, _ := pipeConn(t, input)
	ctx := context.Background()
	read := func() jsonrpc.Message {
		t.Helper()
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		return m
	}
	if r, ok := read().(*jsonrpc.Response); !ok || r.ID != id(7) || string(r.Result) != `{"ok":true}` || r.Error != nil {
		t.Errorf("response 7 = %+v", r)
	}
	var werr *jsonrpc.Error
	if r, ok := read().(*jsonrpc.Response); !ok || r.ID != id("s1") || !errors.As(r.Error, &werr) || werr.Code != -32601 {
		t.Errorf("error response = %+v", r)
	}
	if r, ok := read().(*jsonrpc.Request); !ok || r.IsCall() || r.Method != "notifications/tools/list_changed" {
		t.Errorf("notification = %+v", r)
	}
	if r, ok := read().(*jsonrpc.Response); !ok || r.ID != id(1) {
		t.Errorf("batch[0] = %+v", r)
	}
	if r, ok := read().(*jsonrpc.Request); !ok || r.Method != "ping" || r.ID != id(9) {
		t.Errorf("batch[1] = %+v", r)
	}
	if _, err := c.Read(ctx); err == nil || !strings.Contains(err.Error(), `"1.0"`) {
		t.Errorf("wrong version: err = %v", err)
	}
}

func TestLineConnWriteHonoursDeadline(t *testing.T) {
	c, inR := pipeConn(t, "")
	// Nobody reads inR: a message larger than the pipe buffer blocks
	// until the context's deadline.
	big := json.RawMessage(`{"blob":"` + strings.Repeat("a", 4<<20) + `"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.Write(ctx, &jsonrpc.Request{ID: id(1), Method: "tools/call", Params: big})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write to a deaf server = %v, want a deadline error", err)
	}
	// And a small write still goes through afterwards.
	go io.Copy(io.Discard, inR)
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		t.Fatalf("Write after deadline: %v", err)
	}
}

// FuzzLineConnRead feeds arbitrary server output to the stdio connection:
// it must never panic, and never hand the SDK more than the size cap.
func FuzzLineConnRead(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"x"}]` + "\n",
		`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m","data":[1]}}` + "\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}\n",
		"garbage\n\n{\n}\n",
		`{"jsonrpc":"2.0","id":null,"method":"n"}` + "\n",
		`[]` + "\n" + `{"jsonrpc":"2.0","id":1.5,"result":1}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 256
		c := &lineConn{lines: newLineReader(strings.NewReader(string(data)), limit)}
		for range 64 {
			m, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var size int
			switch m := m.(type) {
			case *jsonrpc.Request:
				size = len(m.Params)
			case *jsonrpc.Response:
				size = len(m.Result)
			}
			if size > limit {
				t.Fatalf("message part of %d bytes passed a %d-byte cap", size, limit)
			}
		}
	})
}
