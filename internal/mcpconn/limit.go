package mcpconn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// errLineTooLong is what lineReader returns once a line outgrows its
// budget; the JSON decoder above it passes the error through unchanged.
var errLineTooLong = errors.New("inbound line exceeds the message size limit")

// malformedLineError reports a line that ends inside a JSON value. The
// SDK decodes a JSON stream, not lines, so without this check an
// unterminated object would make it wait for bytes that never come. Other
// syntax errors are left to the SDK's decoder, which fails on them at once.
type malformedLineError struct{ prefix string }

func (e *malformedLineError) Error() string {
	return fmt.Sprintf("inbound line is not valid JSON: %q", e.prefix)
}

// lineReader frames a server's stdout into lines before anything decodes
// them: a line longer than limit fails with errLineTooLong after buffering
// at most limit bytes (so a 100 MB line costs 16 MiB, not 100 MB), and a
// line that ends inside a JSON value fails with *malformedLineError.
// Blank lines are skipped.
type lineReader struct {
	br      *bufio.Reader
	limit   int64
	line    []byte // reused buffer for the line being assembled
	err     error  // sticky failure
	tripped atomic.Bool
}

func newLineReader(r io.Reader, limit int64) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// nextLine returns the next non-blank line, trimmed. The slice is only
// valid until the next call.
func (l *lineReader) nextLine() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	for {
		body, err := l.assemble()
		if err != nil {
			l.err = err
			return nil, err
		}
		if len(body) > 0 {
			return body, nil
		}
	}
}

func (l *lineReader) assemble() ([]byte, error) {
	l.line = l.line[:0]
	for {
		frag, err := l.br.ReadSlice('\n')
		if int64(len(l.line)+len(frag)) > l.limit+1 { // +1 for the newline
			l.tripped.Store(true)
			l.line = nil // give the memory back
			return nil, errLineTooLong
		}
		l.line = append(l.line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			// A partial line at EOF means the server died mid-message; the
			// exit, not the fragment, is what the caller needs to hear.
			return nil, err
		}
		body := bytes.TrimSpace(l.line)
		if len(body) > 0 && !jsonComplete(body) {
			return nil, &malformedLineError{prefix: string(body[:min(len(body), 80)])}
		}
		return body, nil
	}
}

// ringBuffer keeps the last max bytes written to it and counts the rest,
// so a server that spews to stderr costs a bounded amount of memory while
// the most recent (usually most telling) output survives.
type ringBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) >= r.max {
		r.dropped += int64(len(r.buf) + len(p) - r.max)
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		return n, nil
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.dropped += int64(over)
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

func (r *ringBuffer) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", r.dropped, r.buf)
	}
	return string(r.buf)
}

// tail returns at most n trailing bytes, for error messages.
func (r *ringBuffer) tail(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buf
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(bytes.TrimSpace(b))
}

// jsonDepth returns the maximum nesting depth of arrays and objects in a
// JSON text, stopping early once it passes limit. It is a byte scan that
// skips string contents, so it is cheap compared with decoding.
func jsonDepth(data []byte, limit int) int {
	max, _ := scanJSON(data, limit)
	return max
}

// jsonComplete reports whether a line closes every string, array and
// object it opens, i.e. whether a stream decoder could finish a value on
// it without reading the next line.
func jsonComplete(data []byte) bool {
	_, complete := scanJSON(data, -1)
	return complete
}

// scanJSON walks a JSON text once, skipping string contents, and returns
// its maximum nesting depth and whether it ends with every string, array
// and object closed. A limit >= 0 stops the walk as soon as the depth
// passes it (completeness is then not known and reported false).
func scanJSON(data []byte, limit int) (maxDepth int, complete bool) {
	depth := 0
	var strs catalog.JSONStrings
	for _, c := range data {
		if strs.Skip(c) {
			continue
		}
		switch c {
		case '{', '[':
			depth++
			if depth > maxDepth {
				maxDepth = depth
				if limit >= 0 && maxDepth > limit {
					return maxDepth, false
				}
			}
		case '}', ']':
			depth--
		}
	}
	return maxDepth, !strs.Open() && depth <= 0
}
