package testkit

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// docsScreenshots is the switch that refreshes the README's pictures:
//
//	go test ./internal/report ./internal/scan ./internal/redteam -run InBrowser -args -docs-screenshots
var docsScreenshots = flag.Bool("docs-screenshots", false, "also write the README's screenshots to docs/")

// candidates are the names Debian and other distributions give Chromium.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindChromium returns the path of a Chromium binary, honouring
// $MCPSEC_CHROMIUM.
func FindChromium() (string, bool) {
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

// Chromium starts Chromium for t (failing t when it is missing) and stops
// it when t ends. Network events are recorded from the first navigation.
func Chromium(t testing.TB) *Browser {
	t.Helper()
	path, ok := FindChromium()
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

// AssertOnlyRequested fails t unless every request the page made was for
// url itself (a self-contained page fetches nothing else) and at least
// one was recorded (else the listener, not the page, is what was tested).
func (b *Browser) AssertOnlyRequested(t testing.TB, url string) {
	t.Helper()
	reqs := b.Requests()
	if len(reqs) == 0 {
		t.Error("no request recorded at all: the network listener is not working")
	}
	for _, u := range reqs {
		if u != url {
			t.Errorf("the page requested %s", u)
		}
	}
}

// Screenshot runs before (scrolling, say), captures the viewport and
// writes it as name into t's temporary directory, and also into the
// module's docs/ when the test binary runs with -docs-screenshots. The
// temporary copy means every run exercises the capture, not only a
// refresh of the README's pictures.
func (b *Browser) Screenshot(t testing.TB, name string, before ...chromedp.Action) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(b.Ctx, append(before, chromedp.CaptureScreenshot(&png))...); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dirs := []string{t.TempDir()}
	if *docsScreenshots {
		dirs = append(dirs, filepath.Join(Root(t), "docs"))
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
