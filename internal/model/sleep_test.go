package model

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Sleep ends with ctx: a cancelled run must not sit out an hour's wait,
// and a wait of nothing still reports a context that has ended.
func TestSleepEndsWithContext(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"no wait, live context", live, 0, nil},
		{"negative wait, live context", live, -time.Second, nil},
		{"short wait, live context", live, time.Millisecond, nil},
		{"no wait, ended context", done, 0, context.Canceled},
		{"an hour, ended context", done, time.Hour, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := Sleep(tc.ctx, tc.d); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("Sleep(%v) = %v, want %v", tc.d, err, tc.want)
			}
		})
	}
}
