// Package headless starts Debian's Chromium for the tests of mcpsec's
// HTML pages and records every request a page makes, so a test can assert
// that a self-contained page fetched nothing.
//
// Chromium is installed by the test command (make deps). A test that
// needs it fails, never skips, when it is missing: a skipped browser test
// would let a broken page through unnoticed.
package headless

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// candidates are the names Debian and other distributions give Chromium.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium binary, honouring $MCPSEC_CHROMIUM.
func Find() (string, bool) {
	if p := os.Getenv("MCPSEC_CHROMIUM"); p != "" {
		return p, true
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, true
		}
	}
	return "", false
}

// Browser is one headless Chromium with a tab, and the URLs of every
// request made in it.
type Browser struct {
	Ctx context.Context

	mu       sync.Mutex
	requests []string
}

// New starts Chromium for t (failing t when it is missing) and stops it
// when t ends. Network events are recorded from the first navigation.
func New(t testing.TB) *Browser {
	t.Helper()
	path, ok := Find()
	if !ok {
		t.Fatalf("chromium not found: run `make deps` (it installs Debian's chromium with apt-get), or set MCPSEC_CHROMIUM to a Chromium binary")
	}
	// The profile lives outside t.TempDir: Chromium's helper processes
	// (crash handler, renderers) can still be closing files in it after the
	// browser itself has exited, which made t.TempDir's strict cleanup fail
	// a passing test. It is removed below once the browser is gone.
	profile, err := os.MkdirTemp("", "mcpsec-chromium-")
	if err != nil {
		t.Fatalf("chromium profile directory: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("disable-breakpad", true),
	)
	// A safety net, not a measurement: a browser test takes seconds, so a
	// browser that has not finished in minutes is stuck, and the test
	// should fail rather than hang until go test's own deadline.
	base, cancelTimeout := context.WithTimeout(context.Background(), 5*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		cancelTimeout()
		// Helpers that outlive the browser release the profile soon after;
		// retry until the directory is gone rather than guess a delay. A
		// profile that still cannot be removed is left in the system temp
		// directory and said, not counted as a failure of the page.
		var rmErr error
		for range 200 {
			if rmErr = os.RemoveAll(profile); rmErr == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("chromium profile %s left behind: %v", profile, rmErr)
	})
	b := &Browser{Ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("start chromium (%s): %v (run `make deps` to install Debian's chromium)", path, err)
	}
	return b
}

// Requests returns the URLs requested so far, in order.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}
