package mcpconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// errLineTooLong is what lineLimitReader returns once a line outgrows its
// budget; the JSON decoder above it passes the error through unchanged.
var errLineTooLong = errors.New("inbound line exceeds the message size limit")

// lineLimitReader fails as soon as a single newline-delimited line exceeds
// limit bytes. It sits under the SDK's JSON decoder, so a server streaming
// a 100 MB line costs us at most limit bytes of buffer, not 100 MB.
type lineLimitReader struct {
	r       io.Reader
	limit   int64
	cur     int64 // bytes of the current line seen so far
	tripped atomic.Bool
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	if l.tripped.Load() {
		return 0, errLineTooLong
	}
	n, err := l.r.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.cur += int64(len(chunk))
			break
		}
		if l.cur+int64(i) > l.limit {
			l.cur += int64(i)
			break
		}
		l.cur = 0
		chunk = chunk[i+1:]
	}
	if l.cur > l.limit {
		l.tripped.Store(true)
		return 0, errLineTooLong
	}
	return n, err
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
	depth, max := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if depth > max {
				max = depth
				if max > limit {
					return max
				}
			}
		case '}', ']':
			depth--
		}
	}
	return max
}
