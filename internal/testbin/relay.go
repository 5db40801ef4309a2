package testbin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// Relay is a `padd mcp-serve` started the way an agent's client starts
// it: its session initialized (initialize, then
// notifications/initialized), and then left alone, as clients leave
// their MCP servers running between prompts.
type Relay struct {
	Cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// The messages an agent opens its session with.
const (
	relayInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"padd-idle","version":"1"}}}` + "\n"
	relayInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
)

// StartRelay starts cmd (`padd mcp-serve`, with the caller's environment
// and attributes), sends initialize, waits up to timeout for its answer
// and sends notifications/initialized. Whatever the relay writes after
// that is read and dropped.
func StartRelay(cmd *exec.Cmd, timeout time.Duration) (*Relay, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &Relay{Cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.done) }()
	answer := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadBytes('\n')
		if err == nil && !bytes.Contains(line, []byte(`"result"`)) {
			err = fmt.Errorf("initialize answered %s", line)
		}
		answer <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	if _, err := io.WriteString(stdin, relayInitialize); err != nil {
		r.Stop()
		return nil, err
	}
	select {
	case err = <-answer:
	case <-time.After(timeout):
		err = fmt.Errorf("no answer to initialize within %s", timeout)
	case <-r.done:
		err = errors.New("it exited before answering initialize")
	}
	if err == nil {
		_, err = io.WriteString(stdin, relayInitialized)
	}
	if err != nil {
		r.Stop()
		return nil, fmt.Errorf("padd mcp-serve: %w", err)
	}
	return r, nil
}

// Pid is the relay's process id.
func (r *Relay) Pid() int { return r.Cmd.Process.Pid }

// Stop closes the relay's stdin, as a client that goes away does, and
// waits for it to exit: up to 10 s, then it is killed.
func (r *Relay) Stop() {
	_ = r.stdin.Close()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = r.Cmd.Process.Kill()
		<-r.done
	}
}
