package mcpconn

import (
	"os/exec"
	"runtime"
	"syscall"
)

// On Linux a stdio server is started with PR_SET_PDEATHSIG, so the kernel
// kills it when mcpsec dies, however it dies (a SIGKILL of mcpsec proxy
// included, which runs no Go code that could stop it). The signal fires
// when the *thread* that forked the child exits, not the process, and the
// Go runtime may retire threads; so every server is forked from one
// goroutine locked to its thread for the life of the process.
//
// Only the server itself gets the signal; what it spawned (npx's node,
// say) is in its process group, which Close kills, and loses its stdin
// with mcpsec, which is how a stdio server learns to exit.

type spawnJob struct {
	cmd  *exec.Cmd
	done chan error
}

// spawnJobs feeds the spawner, which starts with the process (not at the
// first server) so that it is never mistaken for a leaked goroutine.
var spawnJobs = make(chan spawnJob)

func init() { go spawner() }

func startCmd(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	j := spawnJob{cmd: cmd, done: make(chan error, 1)}
	spawnJobs <- j
	return <-j.done
}

func spawner() {
	// Never unlocked: this thread is the parent of every server and must
	// outlive them all.
	runtime.LockOSThread()
	for j := range spawnJobs {
		j.done <- j.cmd.Start()
	}
}
