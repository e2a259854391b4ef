package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// APIError is a provider failure with secrets scrubbed from its text. The
// SDKs' own errors are not wrapped because some of them render the
// request (URL, headers) in Error(); only context errors stay reachable
// through Unwrap.
type APIError struct {
	// Spec is the model spec that failed.
	Spec string
	// StatusCode is the last HTTP status seen, 0 for transport failures.
	StatusCode int
	// Attempts is how many HTTP attempts were made.
	Attempts int
	// Message is the scrubbed provider message.
	Message string
	cause   error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Spec)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.StatusCode)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap exposes ErrRetriesExhausted and context errors, never SDK errors.
func (e *APIError) Unwrap() error { return e.cause }

// attemptInfo is what the capture transport saw on the wire during one
// attempt; the SDKs disagree on how (or whether) they expose headers of a
// failed response, so the retry loop reads them here instead.
type attemptInfo struct {
	mu         sync.Mutex
	status     int
	retryAfter string
}

type attemptKey struct{}

type captureTransport struct{ base http.RoundTripper }

func (t captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok && resp != nil {
		info.mu.Lock()
		info.status = resp.StatusCode
		info.retryAfter = resp.Header.Get("Retry-After")
		info.mu.Unlock()
	}
	if resp != nil && resp.Body != nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxResponseBytes}
	}
	return resp, err
}

// MaxResponseBytes bounds how much of one provider response is read, so a
// hostile endpoint streaming forever cannot exhaust memory.
const MaxResponseBytes = 64 << 20

// maxResponseBytes is MaxResponseBytes, lowered by tests.
var maxResponseBytes int64 = MaxResponseBytes

var errResponseTooLarge = errors.New("provider response exceeds the size limit")

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errResponseTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}

func withCapture(hc *http.Client) *http.Client {
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = captureTransport{base: base}
	return &c
}

// retrying is the Model every provider adapter is wrapped in: it owns
// timing (backoff, Retry-After) and scrubs secrets from errors.
type retrying struct {
	spec   string
	secret string
	opts   Options
	call   providerCall
}

func (r *retrying) Spec() string { return r.spec }

// Complete runs one request with retries on 429, 5xx and timeouts.
func (r *retrying) Complete(ctx context.Context, req Request) (Response, error) {
	for attempt := 1; ; attempt++ {
		info := &attemptInfo{}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, info), r.opts.AttemptTimeout)
		resp, err := r.call(actx, req)
		cancel()
		if err == nil {
			return resp, nil
		}
		info.mu.Lock()
		status, retryAfter := info.status, info.retryAfter
		info.mu.Unlock()
		if ctx.Err() != nil {
			return Response{}, &APIError{Spec: r.spec, StatusCode: status, Attempts: attempt, Message: "cancelled", cause: ctx.Err()}
		}
		var pe *parseFailure
		if errors.As(err, &pe) {
			return Response{}, &APIError{Spec: r.spec, StatusCode: status, Attempts: attempt, Message: r.scrub(err).Error()}
		}
		if !retryable(status, err) {
			return Response{}, &APIError{Spec: r.spec, StatusCode: status, Attempts: attempt, Message: r.scrub(err).Error()}
		}
		if attempt > r.opts.MaxRetries {
			return Response{}, &APIError{Spec: r.spec, StatusCode: status, Attempts: attempt,
				Message: fmt.Sprintf("%v (last: %s)", ErrRetriesExhausted, r.scrub(err)), cause: ErrRetriesExhausted}
		}
		wait, fromHeader := parseRetryAfter(retryAfter, time.Now())
		if !fromHeader {
			wait = r.opts.Backoff(attempt)
		}
		wait = min(max(wait, 0), r.opts.MaxWait)
		fmt.Fprintf(r.opts.Log, "%s: attempt %d failed (status %d); retrying in %s\n", r.spec, attempt, status, wait)
		if err := r.opts.Sleep(ctx, wait); err != nil {
			return Response{}, &APIError{Spec: r.spec, StatusCode: status, Attempts: attempt, Message: "cancelled while waiting to retry", cause: err}
		}
	}
}

// retryable reports whether a failed attempt is worth repeating: rate
// limits, server errors, and attempts that timed out or lost the
// connection mid-answer.
func retryable(status int, err error) bool {
	switch {
	case status == http.StatusTooManyRequests, status == http.StatusRequestTimeout, status >= 500:
		return true
	case status != 0 && status < 400:
		// A 2xx whose body could not be decoded is not going to improve.
		return false
	case status != 0:
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP
// date (RFC 9110 §10.2.3). ok is false when the header is absent or
// unusable, in which case the caller falls back to its backoff.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 1e7 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// scrub returns err's text with the API key replaced, as a plain error.
func (r *retrying) scrub(err error) error {
	return errors.New(scrubString(err.Error(), r.secret))
}

func scrubString(s, secret string) string {
	if secret != "" && len(secret) >= 4 {
		s = strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	return s
}

// parseFailure wraps errors about a response we could not understand
// (not a transport or HTTP failure), which are never retried.
type parseFailure struct{ err error }

func (p *parseFailure) Error() string { return p.err.Error() }
func (p *parseFailure) Unwrap() error { return p.err }
