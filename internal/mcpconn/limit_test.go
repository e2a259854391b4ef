package mcpconn

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		limit   int64
		want    []string
		wantErr error
		tripped bool
	}{
		{"lines", "{\"a\":1}\n[2]\n", 100, []string{`{"a":1}`, `[2]`}, io.EOF, false},
		{"crlf and blank lines", "\r\n{\"a\":1}\r\n\n  \n\"s\"\n", 100, []string{`{"a":1}`, `"s"`}, io.EOF, false},
		{"exactly at the limit", "[1234567]\n", 9, []string{`[1234567]`}, io.EOF, false},
		{"one byte over", "[12345678]\n", 9, nil, errLineTooLong, true},
		{"over the limit after good lines", "[1]\n" + strings.Repeat("x", 200) + "\n", 50, []string{`[1]`}, errLineTooLong, true},
		{"unterminated object", "{\"a\":1\n{\"b\":2}\n", 100, nil, &malformedLineError{}, false},
		{"unterminated string", "\"abc\n", 100, nil, &malformedLineError{}, false},
		{"brace inside a string", "{\"a\":\"}{\"}\n", 100, []string{`{"a":"}{"}`}, io.EOF, false},
		{"escaped quote", "{\"a\":\"\\\"{\"}\n", 100, []string{`{"a":"\"{"}`}, io.EOF, false},
		{"partial line at EOF", "[1]\n{\"a\":", 100, []string{`[1]`}, io.EOF, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tc.input), tc.limit)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = lr.nextLine(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
			var mal *malformedLineError
			if _, wantMal := tc.wantErr.(*malformedLineError); wantMal {
				if !errors.As(err, &mal) {
					t.Errorf("err = %v, want a malformed-line error", err)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if lr.tripped.Load() != tc.tripped {
				t.Errorf("tripped = %v", lr.tripped.Load())
			}
			if _, again := lr.nextLine(); again != err {
				t.Errorf("error is not sticky: %v then %v", err, again)
			}
		})
	}
}

func TestRingBuffer(t *testing.T) {
	cases := []struct {
		name   string
		max    int
		writes []string
		want   string
		tail   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", "def"},
		{"overflow across writes", 5, []string{"abc", "defg"}, "[2 earlier bytes dropped]\ncdefg", "efg"},
		{"one huge write", 4, []string{"0123456789"}, "[6 earlier bytes dropped]\n6789", "789"},
		{"huge write after data", 4, []string{"ab", "0123456789"}, "[8 earlier bytes dropped]\n6789", "789"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &ringBuffer{max: tc.max}
			for _, w := range tc.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := r.String(); got != tc.want {
				t.Errorf("String = %q, want %q", got, tc.want)
			}
			if got := r.tail(3); got != tc.tail {
				t.Errorf("tail = %q, want %q", got, tc.tail)
			}
		})
	}
}

func TestJSONDepth(t *testing.T) {
	cases := []struct {
		in    string
		limit int
		want  int
	}{
		{`1`, 10, 0},
		{`{"a":[1,{"b":2}]}`, 10, 3},
		{`{"a":"[[[[{{{{"}`, 10, 1},
		{`{"a":"\"[[[["}`, 10, 1},
		{strings.Repeat("[", 50) + strings.Repeat("]", 50), 10, 11}, // stops once past the limit
	}
	for _, tc := range cases {
		if got := jsonDepth([]byte(tc.in), tc.limit); got != tc.want {
			t.Errorf("jsonDepth(%.30q, %d) = %d, want %d", tc.in, tc.limit, got, tc.want)
		}
	}
}

// endless is a server that never ends its line; it counts what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestLineReaderTripsOnBytes: the size cap is decided by bytes read, with
// no clock involved, and it trips after at most one buffer beyond the
// limit, so an endless line costs the limit, not the line.
func TestLineReaderTripsOnBytes(t *testing.T) {
	for _, limit := range []int64{1, 1000, 1 << 20} {
		src := &endless{}
		lr := newLineReader(src, limit)
		if _, err := lr.nextLine(); !errors.Is(err, errLineTooLong) {
			t.Fatalf("limit %d: err = %v, want errLineTooLong", limit, err)
		}
		if !lr.tripped.Load() {
			t.Errorf("limit %d: not marked tripped", limit)
		}
		if max := limit + int64(lr.br.Size()); src.n > max {
			t.Errorf("limit %d: read %d bytes before tripping, want at most %d", limit, src.n, max)
		}
		if lr.line != nil {
			t.Errorf("limit %d: kept a %d-byte buffer after tripping", limit, cap(lr.line))
		}
	}
}
