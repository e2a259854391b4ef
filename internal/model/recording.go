package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// RecordingMode says whether a Recording captures live traffic or plays
// a cassette back.
type RecordingMode int

// Recording modes.
const (
	// ModeRecord sends requests to the provider and saves every
	// interaction (secrets stripped) when Stop is called.
	ModeRecord RecordingMode = iota + 1
	// ModeReplay answers from the cassette only; a request that is not in
	// it fails with a clear error and nothing touches the network.
	ModeReplay
)

func (m RecordingMode) String() string {
	switch m {
	case ModeRecord:
		return "record"
	case ModeReplay:
		return "replay"
	}
	return fmt.Sprintf("RecordingMode(%d)", int(m))
}

// Files inside a recording directory besides the cassettes.
const (
	// SpecFile holds the spec the cassettes were recorded with.
	SpecFile = "spec.txt"
	// BaseURLFile holds the endpoint when it was not the provider default,
	// so that replay rebuilds the same request URLs.
	BaseURLFile = "base_url.txt"
)

// sensitiveHeaders are removed from every recorded request and response.
var sensitiveHeaders = []string{
	"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key",
	"Proxy-Authorization", "Cookie", "Set-Cookie",
	"Openai-Organization", "Openai-Project", "Anthropic-Organization-Id",
}

// sensitiveQuery are query parameters that carry keys on some providers.
var sensitiveQuery = []string{"key", "api_key", "api-key"}

// Recording is one go-vcr cassette, <Dir>/<Name>.yaml, that a model's HTTP
// client records into or replays from. One Recording serves one model
// instance (normally one trial).
type Recording struct {
	Dir  string
	Name string
	Mode RecordingMode

	mu      sync.Mutex
	rec     *recorder.Recorder
	secrets []string
	err     error
	canon   sync.Map
}

// NewRecording prepares a cassette. In record mode Dir is created; in
// replay mode the cassette must already exist.
func NewRecording(dir, name string, mode RecordingMode) (*Recording, error) {
	if dir == "" {
		return nil, errors.New("recording: empty directory")
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("recording: cassette name %q must be a plain file name", name)
	}
	r := &Recording{Dir: dir, Name: name, Mode: mode}
	switch mode {
	case ModeRecord:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("recording: %w", err)
		}
	case ModeReplay:
		if _, err := os.Stat(r.Path()); err != nil {
			return nil, fmt.Errorf("recording: cassette %s: %w", r.Path(), err)
		}
	default:
		return nil, fmt.Errorf("recording: unknown mode %d", int(mode))
	}
	return r, nil
}

// Path is the cassette file.
func (r *Recording) Path() string { return filepath.Join(r.Dir, r.Name+".yaml") }

// bind is called by New: it remembers the key (scrubbed from everything
// saved) and, when recording, writes the spec and endpoint beside the
// cassettes so that replay:DIR can rebuild the same adapter.
func (r *Recording) bind(spec, baseURL, secret string) error {
	r.mu.Lock()
	if secret != "" {
		r.secrets = append(r.secrets, secret)
	}
	r.mu.Unlock()
	if r.Mode != ModeRecord {
		return nil
	}
	if err := writeOnce(filepath.Join(r.Dir, SpecFile), spec); err != nil {
		return err
	}
	if baseURL != "" && !strings.HasPrefix(spec, ProviderOpenAICompatible+":") &&
		!(strings.HasPrefix(spec, ProviderDeepSeek+":") && baseURL == DeepSeekBaseURL) &&
		!(strings.HasPrefix(spec, ProviderOllama+":") && baseURL == OllamaBaseURL) {
		return writeOnce(filepath.Join(r.Dir, BaseURLFile), baseURL)
	}
	return nil
}

// writeOnce writes content to path unless it already holds exactly that;
// a recording directory serves one spec only.
func writeOnce(path, content string) error {
	old, err := os.ReadFile(path)
	if err == nil {
		if strings.TrimSpace(string(old)) != content {
			return fmt.Errorf("recording: %s holds %q, not %q: one directory per model spec", path, strings.TrimSpace(string(old)), content)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	_, werr := tmp.WriteString(content + "\n")
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recording: writing %s: %w", path, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recording: %w", err)
	}
	return nil
}

// wrap returns a client whose transport goes through the cassette.
func (r *Recording) wrap(hc *http.Client) *http.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rec == nil && r.err == nil {
		real := hc.Transport
		if real == nil {
			real = http.DefaultTransport
		}
		mode := recorder.ModeRecordOnly
		if r.Mode == ModeReplay {
			mode = recorder.ModeReplayOnly
		}
		opts := []recorder.Option{
			recorder.WithMode(mode),
			recorder.WithRealTransport(real),
			recorder.WithMatcher(matchWith(&r.canon)),
			recorder.WithSkipRequestLatency(true),
			recorder.WithHook(r.scrubInteraction, recorder.AfterCaptureHook),
			recorder.WithHook(r.scrubInteraction, recorder.BeforeSaveHook),
		}
		if r.Mode == ModeReplay {
			// go-vcr runs this hook in record mode too (on the live
			// answer), where Retry-After must be honoured as sent.
			opts = append(opts, recorder.WithHook(noReplayWait, recorder.BeforeResponseReplayHook))
		}
		r.rec, r.err = recorder.New(strings.TrimSuffix(r.Path(), ".yaml"), opts...)
	}
	c := *hc
	if r.err != nil {
		c.Transport = failingTransport{fmt.Errorf("recording %s: %w", r.Path(), r.err)}
	} else {
		c.Transport = replayTransport{rec: r.rec, path: r.Path()}
	}
	return &c
}

// Stop saves the cassette (record mode). It is safe to call more than
// once and on a Recording no model used.
func (r *Recording) Stop() error {
	r.mu.Lock()
	rec, recErr := r.rec, r.err
	r.mu.Unlock()
	// The save hooks take r.mu, so the recorder is stopped unlocked.
	if rec == nil {
		return recErr
	}
	err := rec.Stop()
	if err != nil {
		return fmt.Errorf("recording %s: %w", r.Path(), err)
	}
	return nil
}

type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// replayTransport turns go-vcr's "not found" into an error that names the
// cassette and the request.
type replayTransport struct {
	rec  *recorder.Recorder
	path string
}

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rec.RoundTrip(req)
	if errors.Is(err, cassette.ErrInteractionNotFound) {
		return nil, fmt.Errorf("replay: %s %s is not in cassette %s (the conversation diverged from the recording): %w",
			req.Method, stripKeyParams(req.URL.String()), t.path, err)
	}
	return resp, err
}

// scrubInteraction removes credentials from an interaction before it is
// kept in memory or written to disk.
func (r *Recording) scrubInteraction(i *cassette.Interaction) error {
	r.mu.Lock()
	secrets := append([]string(nil), r.secrets...)
	r.mu.Unlock()
	scrub := func(s string) string {
		for _, sec := range secrets {
			s = scrubString(s, sec)
		}
		return s
	}
	i.Request.Headers = scrubHeaders(i.Request.Headers, scrub)
	i.Response.Headers = scrubHeaders(i.Response.Headers, scrub)
	i.Request.URL = scrub(stripKeyParams(i.Request.URL))
	i.Request.RequestURI = scrub(stripKeyParams(i.Request.RequestURI))
	if i.Request.Form != nil {
		f := url.Values{}
		for k, v := range i.Request.Form {
			if !isSensitiveQuery(k) {
				f[k] = v
			}
		}
		i.Request.Form = f
	}
	i.Request.Body = scrub(i.Request.Body)
	i.Response.Body = scrub(i.Response.Body)
	return nil
}

// scrubHeaders returns a cleaned copy: the recorder shares the header map
// with the live request, which must not be mutated under the SDK.
func scrubHeaders(h http.Header, scrub func(string) string) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if isSensitiveHeader(k) {
			continue
		}
		cp := make([]string, len(vs))
		for j, v := range vs {
			cp[j] = scrub(v)
		}
		out[k] = cp
	}
	return out
}

func isSensitiveHeader(k string) bool {
	for _, s := range sensitiveHeaders {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

func isSensitiveQuery(k string) bool {
	for _, s := range sensitiveQuery {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// stripKeyParams removes key-bearing query parameters from a URL string.
func stripKeyParams(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	q := u.Query()
	changed := false
	for k := range q {
		if isSensitiveQuery(k) {
			q.Del(k)
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// noReplayWait makes replayed 429/5xx answers ask for no wait; together
// with the no-op Sleep that replay:DIR installs, a recorded back-off is
// replayed instantly, in the same order, with the same final outcome.
func noReplayWait(i *cassette.Interaction) error {
	if i.Response.Code == http.StatusTooManyRequests || i.Response.Code >= 500 {
		if i.Response.Headers == nil {
			i.Response.Headers = http.Header{}
		}
		i.Response.Headers.Set("Retry-After", "0")
	}
	return nil
}

// matchRequest matches on method, URL without key parameters, and the
// body as canonical JSON (object keys sorted), so that map iteration
// order in an SDK never breaks a replay.
func matchRequest(r *http.Request, c cassette.Request) bool {
	return matchWith(nil)(r, c)
}

// matchWith is matchRequest with canonical forms memoized in cache (nil
// for none): go-vcr compares each request with every unused interaction,
// so without it a long replay re-encodes the same bodies quadratically.
func matchWith(cache *sync.Map) cassette.MatcherFunc {
	canon := func(b string) string {
		if cache == nil {
			return canonicalJSON([]byte(b))
		}
		if v, ok := cache.Load(b); ok {
			return v.(string)
		}
		v := canonicalJSON([]byte(b))
		cache.Store(b, v)
		return v
	}
	return func(r *http.Request, c cassette.Request) bool {
		if r.Method != c.Method {
			return false
		}
		if stripKeyParams(r.URL.String()) != stripKeyParams(c.URL) {
			return false
		}
		body, err := readBody(r)
		if err != nil {
			return false
		}
		return canon(string(body)) == canon(c.Body)
	}
}

func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// canonicalJSON re-encodes JSON with sorted keys; non-JSON is compared
// as is.
func canonicalJSON(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}

// newReplay builds replay:DIR: the original adapter, a replaying client,
// a dummy key, and no waiting between replayed retries.
func newReplay(spec, dir string, opts Options) (Model, error) {
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: reading %s: %w", spec, ErrBadSpec, SpecFile, err)
	}
	orig := strings.TrimSpace(string(raw))
	p, _, _, err := ParseSpec(orig)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", spec, filepath.Join(dir, SpecFile), err)
	}
	if p == ProviderReplay || p == ProviderControl {
		return nil, fmt.Errorf("%s: %w: %s names %q, which cannot be replayed", spec, ErrBadSpec, filepath.Join(dir, SpecFile), orig)
	}
	if opts.CassetteName == "" {
		return nil, fmt.Errorf("%s: %w: replay needs Options.CassetteName (the trial id)", spec, ErrBadSpec)
	}
	rec, err := NewRecording(dir, opts.CassetteName, ModeReplay)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	if opts.BaseURL == "" {
		if b, err := os.ReadFile(filepath.Join(dir, BaseURLFile)); err == nil {
			opts.BaseURL = strings.TrimSpace(string(b))
		}
	}
	opts.Recorder = rec
	// Replay must not depend on the caller's environment: every key
	// variable reads as a placeholder and nothing else is looked up.
	opts.Getenv = func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") {
			return "replay-placeholder-key"
		}
		return ""
	}
	opts.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	m, err := New(orig, opts)
	if err != nil {
		return nil, err
	}
	return &replayModel{spec: spec, orig: orig, inner: m}, nil
}

// replayModel reports the replay spec while delegating to the original
// adapter.
type replayModel struct {
	spec  string
	orig  string
	inner Model
}

func (r *replayModel) Spec() string { return r.spec }

// RecordedSpec is the spec the cassettes were recorded with.
func (r *replayModel) RecordedSpec() string { return r.orig }

func (r *replayModel) Complete(ctx context.Context, req Request) (Response, error) {
	return r.inner.Complete(ctx, req)
}

// RecordedSpec returns the spec a replay:DIR model was recorded with, and
// "" for any other model, so reports can label replayed rows.
func RecordedSpec(m Model) string {
	if r, ok := m.(*replayModel); ok {
		return r.orig
	}
	return ""
}
