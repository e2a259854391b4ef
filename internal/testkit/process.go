package testkit

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// CheckGoroutines fails t if goroutines started during it are still
// running once it ends. Closing pipes and contexts takes the runtime a
// moment to unwind, so the count is polled until it is back, within a
// bound far beyond any machine's need; a leak prints every stack.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		var now int
		for range 2400 { // ends as soon as the condition holds
			if now = runtime.NumGoroutine(); now <= before {
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		t.Errorf("goroutine leak: %d before, %d after\n%s", before, now, buf[:runtime.Stack(buf, true)])
	})
}

// AssertReaped fails t unless process pid is gone entirely: started by
// this process, it must have been waited for (a zombie fails). It polls,
// within a bound far beyond any machine's need: an exit is not an event
// this process can wait on without reaping the child itself.
func AssertReaped(t testing.TB, pid int) {
	t.Helper()
	if !waitGone(pid, false) {
		t.Errorf("process %d still exists (or was never reaped)", pid)
	}
}

// AssertStopped fails t unless process pid has stopped running: gone, or
// a zombie. It is for processes this one did not start (a server started
// by a proxy the test started), whose reaping falls to the init process.
func AssertStopped(t testing.TB, pid int) {
	t.Helper()
	if !waitGone(pid, true) {
		t.Errorf("process %d still runs", pid)
	}
}

// waitGone polls for up to 30 s (a killed process is gone within
// milliseconds) until pid no longer exists or, with zombieOK, is a zombie.
func waitGone(pid int, zombieOK bool) bool {
	for range 3000 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if zombieOK && isZombie(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// isZombie reports whether /proc says pid has exited and awaits reaping.
func isZombie(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := bytes.Fields(st[bytes.LastIndexByte(st, ')')+1:])
	return len(f) > 0 && string(f[0]) == "Z"
}
