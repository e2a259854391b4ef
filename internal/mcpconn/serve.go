package mcpconn

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerTransport is the stdio transport for an MCP server mcpsec itself
// serves (mcpsec proxy facing its client): the same framing and envelope
// decoding as the connections to servers mcpsec starts, which costs one
// small decode per message where the SDK's IOTransport allocates three
// 32 KiB decoder buffers. Neither r nor w is closed when the session ends;
// a message longer than maxMessageBytes ends the session.
func ServerTransport(r io.Reader, w io.Writer, maxMessageBytes int64) mcp.Transport {
	if maxMessageBytes <= 0 {
		maxMessageBytes = DefaultOptions().MaxMessageBytes
	}
	return connTransport{&lineConn{lines: newLineReader(r, maxMessageBytes), rc: nopCloser{}, wc: nopWriteCloser{w}}}
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
