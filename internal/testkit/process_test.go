package testkit

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A child that has exited but is not yet waited for is a zombie:
// AssertStopped accepts it, and once waited for AssertReaped does too.
func TestZombieThenReaped(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$") // exits at once
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	zombie := false
	for range 3000 { // ends as soon as the child has exited
		if zombie = isZombie(pid); zombie {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !zombie {
		t.Fatalf("child %d never showed as a zombie before being waited for", pid)
	}
	AssertStopped(t, pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	AssertReaped(t, pid)
	if isZombie(os.Getpid()) {
		t.Error("this running process reads as a zombie")
	}
}
