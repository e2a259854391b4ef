package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// FakeProvider is a local stand-in for a rate-limited provider, used to
// check that a sweep runs close to a provider's limit without losing
// trials. It speaks the OpenAI Chat Completions wire format, so the real
// openai-go client drives it through an openai-compatible:MODEL@URL spec.
// Every answer is a short final text (no tool call). It is a test
// instrument, never a model: its spec names it "fake".
type FakeProvider struct {
	// Latency is added to every answered request.
	Latency time.Duration
	// RPM is the limit; Window is the sliding window it is counted over
	// (a minute by default; tests use shorter windows scaled to the
	// same rate). Requests over the limit get 429 with Retry-After.
	RPM    int
	Window time.Duration

	mu          sync.Mutex
	recent      []time.Time // admitted requests inside the window
	first, last time.Time

	Served   atomic.Int64
	Rejected atomic.Int64
}

func (f *FakeProvider) window() time.Duration {
	if f.Window <= 0 {
		return time.Minute
	}
	return f.Window
}

func (f *FakeProvider) perWindow() int {
	n := int(float64(f.RPM) * f.window().Seconds() / 60)
	if n < 1 {
		n = 1
	}
	return n
}

// admit counts a request against the sliding window, or says how long
// until the oldest request in it leaves.
func (f *FakeProvider) admit(now time.Time) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.RPM <= 0 {
		return true, 0
	}
	cut := 0
	for cut < len(f.recent) && now.Sub(f.recent[cut]) >= f.window() {
		cut++
	}
	f.recent = f.recent[cut:]
	if len(f.recent) >= f.perWindow() {
		return false, f.window() - now.Sub(f.recent[0])
	}
	f.recent = append(f.recent, now)
	if f.first.IsZero() {
		f.first = now
	}
	f.last = now
	return true, 0
}

// AchievedRPM is the served request rate between the first and last
// served request, scaled to a minute.
func (f *FakeProvider) AchievedRPM() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	span := f.last.Sub(f.first)
	n := f.Served.Load()
	if span <= 0 || n < 2 {
		return 0
	}
	return float64(n-1) / span.Minutes()
}

// ServeHTTP answers POST .../chat/completions.
func (f *FakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"method not allowed"}}`, http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	ok, wait := f.admit(time.Now())
	if !ok {
		f.Rejected.Add(1)
		secs := int(wait.Seconds() + 0.999)
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"rate limit reached","type":"rate_limit_error"}}`)
		return
	}
	if f.Latency > 0 {
		time.Sleep(f.Latency)
	}
	n := f.Served.Add(1)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-fake-%d","object":"chat.completion","created":0,"model":%q,`+
		`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"I cannot complete that with the tools offered."}}],`+
		`"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, n, req.Model)
}
