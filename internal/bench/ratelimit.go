package bench

import (
	"context"
	"sync"
	"time"

	"github.com/mcpsec/mcpsec/internal/model"
)

// Bucket is a token bucket refilled continuously at rate per minute. It
// lets a sweep run close to a provider's limit without bursting into 429
// storms: callers wait for capacity instead of being refused.
type Bucket struct {
	mu       sync.Mutex
	capacity float64
	tokens   float64
	perSec   float64
	last     time.Time
	now      func() time.Time
}

// NewBucket allows perMinute units per minute with a burst of burst
// units (at least 1). perMinute <= 0 means unlimited (nil bucket).
func NewBucket(perMinute int, burst int) *Bucket {
	if perMinute <= 0 {
		return nil
	}
	if burst < 1 {
		burst = 1
	}
	return &Bucket{capacity: float64(burst), tokens: float64(burst), perSec: float64(perMinute) / 60, last: time.Now(), now: time.Now}
}

// Wait blocks until n units are available or ctx ends. A request larger
// than the burst is allowed to drive the bucket negative rather than
// wait forever.
func (b *Bucket) Wait(ctx context.Context, n float64) error {
	if b == nil {
		return nil
	}
	for {
		b.mu.Lock()
		now := b.now()
		b.tokens += now.Sub(b.last).Seconds() * b.perSec
		if b.tokens > b.capacity {
			b.tokens = b.capacity
		}
		b.last = now
		need := n
		if need > b.capacity {
			need = b.capacity
		}
		if b.tokens >= need {
			b.tokens -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((need - b.tokens) / b.perSec * float64(time.Second))
		b.mu.Unlock()
		if err := model.Sleep(ctx, max(wait, time.Millisecond)); err != nil {
			return err
		}
	}
}

// Refund returns units (when a request used fewer tokens than reserved).
func (b *Bucket) Refund(n float64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.tokens += n
	if b.tokens > b.capacity {
		b.tokens = b.capacity
	}
	b.mu.Unlock()
}

// Pacer spaces requests evenly at a rate per minute. Each caller
// reserves the next free slot and sleeps until it, so a goroutine that
// wakes late does not push back the ones behind it: the schedule, not
// the wake-ups, sets the rate.
type Pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
	now      func() time.Time
}

// PaceMargin is the share of a provider's limit a sweep aims for: the
// rest absorbs network jitter that would otherwise put two requests
// into one window slot and draw a 429.
const PaceMargin = 0.98

// NewPacer paces perMinute requests a minute (times PaceMargin); 0 or
// less means unlimited (nil).
func NewPacer(perMinute int) *Pacer {
	if perMinute <= 0 {
		return nil
	}
	return &Pacer{interval: time.Duration(float64(time.Minute) / (float64(perMinute) * PaceMargin)), now: time.Now}
}

// Wait blocks until the caller's slot or until ctx ends (the slot is then
// lost, which only slows the sweep).
func (p *Pacer) Wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	now := p.now()
	slot := p.next
	if slot.Before(now) {
		slot = now
	}
	p.next = slot.Add(p.interval)
	p.mu.Unlock()
	return model.Sleep(ctx, slot.Sub(now))
}

// Limiter holds one provider's request pacer and token bucket.
type Limiter struct {
	Requests *Pacer
	Tokens   *Bucket
}

// NewLimiter builds a limiter from a rate limit. Requests are paced
// evenly: against a provider that counts a sliding window, any burst
// above the steady rate is exactly what draws 429s. Tokens may burst one
// second's worth.
func NewLimiter(rl RateLimit) *Limiter {
	return &Limiter{Requests: NewPacer(rl.RPM), Tokens: NewBucket(rl.TPM, rl.TPM/60)}
}

// limited wraps a model so that each request waits for its provider's
// budget. Token cost is estimated from the request before sending and
// corrected with the reported usage afterwards.
type limited struct {
	model.Model
	lim *Limiter
}

func (l limited) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if err := l.lim.Requests.Wait(ctx); err != nil {
		return model.Response{}, err
	}
	est := float64(estimateTokens(req))
	if err := l.lim.Tokens.Wait(ctx, est); err != nil {
		return model.Response{}, err
	}
	resp, err := l.Model.Complete(ctx, req)
	if err == nil {
		used := float64(resp.Usage.InputTokens + resp.Usage.OutputTokens)
		if used > 0 {
			l.lim.Tokens.Refund(est - used)
		}
	}
	return resp, err
}

// estimateTokens approximates a request's token cost at four characters
// per token plus the output budget.
func estimateTokens(req model.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 32
		for _, c := range m.ToolCalls {
			n += len(c.Arguments) + len(c.Name)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + 200
	}
	return n/4 + req.MaxTokens
}
