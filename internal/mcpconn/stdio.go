package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server we started. It owns the pipes (rather than
// using exec's StdoutPipe) so that closing our read end never races with
// cmd.Wait, and it runs the server in its own process group so Close can
// reap grandchildren too.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	limit  *lineReader
	stderr *ringBuffer
	exited chan struct{} // closed once cmd.Wait returned
	werr   error         // cmd.Wait's result, valid after exited
}

func startProcess(src Source, opts Options) (*process, error) {
	if len(src.Command) == 0 || src.Command[0] == "" {
		return nil, errors.New("empty command")
	}
	cmd := exec.Command(src.Command[0], src.Command[1:]...)
	cmd.Env = ServerEnv(os.Environ(), src.PassEnv, src.Env)
	cmd.Dir = src.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// If a grandchild keeps stderr open after the server dies, Wait must
	// not block on the copy goroutine forever.
	cmd.WaitDelay = time.Second

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	p := &process{
		cmd:    cmd,
		stdin:  inW,
		stdout: outR,
		stderr: &ringBuffer{max: opts.StderrLimit},
		exited: make(chan struct{}),
	}
	p.limit = newLineReader(outR, opts.MaxMessageBytes)
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	err = startCmd(cmd)
	// The child has its own copies now (or never will).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %q: %w", src.Command[0], err)
	}
	go func() {
		p.werr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport hands the SDK a lineConn over our pipes.
func (p *process) transport() mcp.Transport {
	return connTransport{&lineConn{lines: p.limit, rc: p.stdout, wc: p.stdin}}
}

// connTransport is a Transport whose connection already exists.
type connTransport struct{ c mcp.Connection }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// hasExited reports whether the process is gone, waiting up to d for it:
// an EOF on stdout usually precedes the exit status by a moment.
func (p *process) hasExited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// describeExit summarises how the process ended, with its stderr tail.
func (p *process) describeExit() string {
	msg := "process ended"
	if p.werr != nil {
		msg = p.werr.Error()
	} else {
		msg = "exit status 0"
	}
	if tail := p.stderr.tail(512); tail != "" {
		msg += "; stderr: " + tail
	}
	return msg
}

// stop closes stdin, gives the server grace to exit on its own, then kills
// its whole process group and waits for it to be reaped.
func (p *process) stop(grace time.Duration) error {
	p.stdin.Close()
	if !p.hasExited(grace) {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	} else {
		// The leader is gone; make sure nothing it spawned lingers.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	p.stdout.Close()
	return nil
}

// Pid returns the server's process id (and process-group id).
func (p *process) pid() int { return p.cmd.Process.Pid }
