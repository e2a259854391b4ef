package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Provider names as they appear before the colon of a spec string.
const (
	ProviderAnthropic        = "anthropic"
	ProviderOpenAI           = "openai"
	ProviderDeepSeek         = "deepseek"
	ProviderOllama           = "ollama"
	ProviderOpenAICompatible = "openai-compatible"
	ProviderGemini           = "gemini"
	ProviderReplay           = "replay"
	ProviderControl          = "control"
)

// Default endpoints. OpenAI's is used when OPENAI_BASE_URL is unset. DeepSeek's is its documented public endpoint and is
// only contacted when a user runs against DeepSeek for real; Ollama's is
// its documented local OpenAI-compatible endpoint.
const (
	OpenAIBaseURL   = "https://api.openai.com/v1/"
	GeminiBaseURL   = "https://generativelanguage.googleapis.com/"
	DeepSeekBaseURL = "https://api.deepseek.com"
	OllamaBaseURL   = "http://127.0.0.1:11434/v1"
)

// Defaults for the retry loop.
const (
	DefaultMaxRetries     = 4
	DefaultAttemptTimeout = 5 * time.Minute
	// DefaultMaxWait caps a single wait so that a hostile or confused
	// server answering "Retry-After: 99999" cannot park a trial forever.
	DefaultMaxWait = 2 * time.Minute
)

// Options configures New. The zero value is usable: keys come from the
// process environment, HTTP goes through a fresh client, and retries use
// exponential backoff with real sleeps.
type Options struct {
	// Getenv looks up API keys and the base-URL variables
	// (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL); nil
	// means os.Getenv. Keys and endpoints always reach the SDKs explicitly.
	Getenv func(string) string
	// HTTPClient carries every provider request; nil means a new client
	// on http.DefaultTransport.
	HTTPClient *http.Client
	// BaseURL overrides the provider endpoint (tests point it at a local
	// server; it also overrides the URL of openai-compatible specs).
	BaseURL string
	// MaxRetries is how many times a retryable failure (429, 5xx,
	// timeout) is retried before ErrRetriesExhausted. 0 means
	// DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// Backoff is the wait before retry number attempt (1-based) when the
	// server sent no usable Retry-After. nil means 1s, 2s, 4s ... capped
	// at 60s.
	Backoff func(attempt int) time.Duration
	// Sleep waits between attempts; nil means a timer that honours ctx.
	// Tests inject a recorder so no test waits for real.
	Sleep func(ctx context.Context, d time.Duration) error
	// AttemptTimeout bounds one HTTP attempt; 0 means
	// DefaultAttemptTimeout. An attempt that runs out is retried.
	AttemptTimeout time.Duration
	// MaxWait caps any single wait between attempts; 0 means
	// DefaultMaxWait.
	MaxWait time.Duration
	// Recorder, when set, records (or replays) every HTTP interaction
	// into a go-vcr cassette. In record mode New also writes the spec
	// into the recording directory so that replay:DIR can rebuild it.
	Recorder *Recording
	// CassetteName selects the cassette inside a replay:DIR directory
	// (normally the trial id). Only replay specs use it.
	CassetteName string
	// Log receives one line per retry; nil discards.
	Log io.Writer
}

func (o Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// ParseSpec splits a model spec string into provider, model and (for
// openai-compatible specs) URL; for replay specs model holds the
// directory. It validates the shape only, not whether keys exist.
func ParseSpec(spec string) (provider, model, rawURL string, err error) {
	provider, rest, ok := strings.Cut(spec, ":")
	if !ok || provider == "" {
		return "", "", "", fmt.Errorf("%w: %q: want PROVIDER:MODEL (anthropic, openai, deepseek, ollama, openai-compatible, gemini, replay, control)", ErrBadSpec, spec)
	}
	if rest == "" {
		return "", "", "", fmt.Errorf("%w: %q: empty model after %q", ErrBadSpec, spec, provider+":")
	}
	switch provider {
	case ProviderAnthropic, ProviderOpenAI, ProviderDeepSeek, ProviderOllama, ProviderGemini, ProviderReplay, ProviderControl:
		return provider, rest, "", nil
	case ProviderOpenAICompatible:
		// The model name may itself contain '@' in odd registries, so the
		// URL is whatever follows the last one.
		i := strings.LastIndex(rest, "@")
		if i <= 0 || i == len(rest)-1 {
			return "", "", "", fmt.Errorf("%w: %q: want openai-compatible:MODEL@URL", ErrBadSpec, spec)
		}
		model, rawURL = rest[:i], rest[i+1:]
		u, perr := url.Parse(rawURL)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "", "", fmt.Errorf("%w: %q: URL %q is not an absolute http(s) URL", ErrBadSpec, spec, rawURL)
		}
		return provider, model, rawURL, nil
	default:
		return "", "", "", fmt.Errorf("%w: %q: unknown provider %q", ErrBadSpec, spec, provider)
	}
}

// keyVars lists, per provider, the environment variables that may hold
// its API key, in order of preference.
var keyVars = map[string][]string{
	ProviderAnthropic: {"ANTHROPIC_API_KEY"},
	ProviderOpenAI:    {"OPENAI_API_KEY"},
	ProviderDeepSeek:  {"DEEPSEEK_API_KEY"},
	ProviderGemini:    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	// Optional: local servers usually want no key at all.
	ProviderOllama:           {"OLLAMA_API_KEY"},
	ProviderOpenAICompatible: {"OPENAI_COMPATIBLE_API_KEY"},
}

// keyOptional marks providers that run without a key.
var keyOptional = map[string]bool{ProviderOllama: true, ProviderOpenAICompatible: true}

// New builds the Model a spec string names. A missing key yields an error
// wrapping ErrNoKey; control specs yield ErrBadSpec because the harness,
// not this package, builds control agents.
func New(spec string, opts Options) (Model, error) {
	provider, name, rawURL, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	switch provider {
	case ProviderControl:
		return nil, fmt.Errorf("%w: %q: control agents are built by the harness, not by model.New", ErrBadSpec, spec)
	case ProviderReplay:
		return newReplay(spec, name, opts)
	}

	key := ""
	for _, v := range keyVars[provider] {
		if key = strings.TrimSpace(opts.getenv(v)); key != "" {
			break
		}
	}
	if key == "" && !keyOptional[provider] {
		return nil, fmt.Errorf("%s: %w (set %s)", spec, ErrNoKey, strings.Join(keyVars[provider], " or "))
	}

	baseURL := opts.BaseURL
	switch {
	case baseURL != "":
	case provider == ProviderOpenAI:
		baseURL = opts.getenv("OPENAI_BASE_URL")
	case provider == ProviderAnthropic:
		baseURL = opts.getenv("ANTHROPIC_BASE_URL")
	case provider == ProviderGemini:
		baseURL = opts.getenv("GOOGLE_GEMINI_BASE_URL")
	case provider == ProviderDeepSeek:
		baseURL = DeepSeekBaseURL
	case provider == ProviderOllama:
		baseURL = OllamaBaseURL
	case provider == ProviderOpenAICompatible:
		baseURL = rawURL
	}

	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	if opts.Recorder != nil {
		if err := opts.Recorder.bind(spec, baseURL, key); err != nil {
			return nil, err
		}
		hc = opts.Recorder.wrap(hc)
	}
	hc = withCapture(hc)

	r := &retrying{spec: spec, secret: key, opts: normalize(opts)}
	switch provider {
	case ProviderAnthropic:
		r.call, err = newAnthropic(name, key, baseURL, hc, r.opts.AttemptTimeout)
	case ProviderGemini:
		r.call, err = newGemini(name, key, baseURL, hc)
	default:
		r.call, err = newOpenAI(provider, name, key, baseURL, hc)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: building client: %w", spec, r.scrub(err))
	}
	return r, nil
}

func normalize(o Options) Options {
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.Backoff == nil {
		o.Backoff = func(attempt int) time.Duration {
			d := time.Second << min(attempt-1, 6)
			return min(d, 60*time.Second)
		}
	}
	if o.Sleep == nil {
		o.Sleep = Sleep
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = DefaultAttemptTimeout
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// Sleep waits d or until ctx ends, whichever is first, and returns ctx's
// error when ctx ended. It is how every wait before a provider request
// is made: a retry's back-off here and the bench's rate pacing, so a
// cancelled run stops waiting at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errProviderCall marks the provider function of one attempt.
type providerCall func(ctx context.Context, req Request) (Response, error)

var errEmptyResponse = errors.New("provider returned no choices/candidates")
