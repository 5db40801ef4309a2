//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
)

// Building and running the real binaries.

// childEnv is a child's environment: ours without what would point it at
// the user's own padd, workspace or profile, plus PAD_HOME and extra.
func childEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PAD_HOME", "PAD_WORKSPACE", "PAD_AGENT", "PAD_URL", "PAD_TOKEN", "GORACE", "PADD_CPUPROFILE":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "PAD_HOME="+home, "GORACE=halt_on_error=0"), extra...)
}

// paddProc is one running padd.
type paddProc struct {
	cmd    *exec.Cmd
	stderr *testbin.Buffer
	exited chan struct{}
	client *api.Client
	base   string
}

func (p *paddProc) pid() int { return p.cmd.Process.Pid }

func (p *paddProc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// startPadd starts padd on home and waits until it answers health. It
// dies with this process (Pdeathsig).
func startPadd(bin, home string, extraEnv ...string) (*paddProc, error) {
	for attempt := 0; ; attempt++ {
		port, err := testbin.FreePort()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(bin, "--port", strconv.Itoa(port))
		cmd.Env = childEnv(home, extraEnv...)
		p := &paddProc{cmd: cmd, stderr: &testbin.Buffer{}, exited: make(chan struct{})}
		cmd.Stderr = p.stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go func() { _ = cmd.Wait(); close(p.exited) }()
		err = p.waitServing(home, 60*time.Second)
		if err == nil {
			return p, nil
		}
		p.kill()
		if strings.Contains(p.stderr.String(), "address already in use") && attempt < 4 {
			continue // another process took the port
		}
		return nil, fmt.Errorf("%v\nstderr of padd:\n%s", err, tail(p.stderr.String(), 4000))
	}
}

func (p *paddProc) waitServing(home string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: 60 * time.Second}}
	for time.Now().Before(deadline) {
		if p.done() {
			return fmt.Errorf("padd exited with code %d while starting", p.cmd.ProcessState.ExitCode())
		}
		if info, err := launch.ReadInfo(home); err == nil && info.PID == p.pid() {
			base := "http://127.0.0.1:" + strconv.Itoa(info.Port)
			if resp, err := hc.Get(base + "/api/v1/health"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					p.base = base
					p.client = api.NewClient(base, info.Token)
					p.client.HTTP = hc
					return nil
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("padd pid %d did not serve within %s", p.pid(), timeout)
}

// stop sends SIGTERM and requires a clean exit within a minute.
func (p *paddProc) stop() error {
	if p.done() {
		return fmt.Errorf("padd pid %d had already exited (code %d)", p.pid(), p.cmd.ProcessState.ExitCode())
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		p.kill()
		return fmt.Errorf("padd pid %d did not exit within a minute of SIGTERM", p.pid())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("padd pid %d exited %d after SIGTERM: %s", p.pid(), code, tail(p.stderr.String(), 2000))
	}
	return nil
}

func (p *paddProc) kill() {
	if !p.done() {
		_ = p.cmd.Process.Kill()
	}
	<-p.exited
}

// raced reports a data race padd printed (binaries built with -race).
func (p *paddProc) raced() bool { return strings.Contains(p.stderr.String(), "WARNING: DATA RACE") }

// indexStatus is GET /padd/index.
type indexStatus struct {
	State      string           `json:"state"`
	Done       int              `json:"done"`
	Total      int              `json:"total"`
	Docs       uint64           `json:"docs"`
	Watermarks map[string]int64 `json:"watermarks"`
}

// waitIndex waits until the search index is ready and has indexed the
// workspace up to head.
func (p *paddProc) waitIndex(wsID string, head int64, timeout time.Duration) (indexStatus, error) {
	deadline := time.Now().Add(timeout)
	var st indexStatus
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var raw json.RawMessage
		_, err := p.client.Do(ctx, "GET", "/padd/index", nil, nil, &raw)
		cancel()
		if err == nil {
			st = indexStatus{}
			if err := json.Unmarshal(raw, &st); err != nil {
				return st, fmt.Errorf("index status: %v", err)
			}
			if st.State == "ready" && st.Watermarks[wsID] >= head {
				return st, nil
			}
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("search index not ready within %s: %+v (err %v)", timeout, st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// heapBytes is padd's Go heap as padd counts it: memory.heap_bytes of
// /padd/status.
func (p *paddProc) heapBytes() (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := p.client.DaemonStatus(ctx)
	if err != nil {
		return 0, err
	}
	if st.Memory == nil {
		return 0, fmt.Errorf("padd reports no memory use")
	}
	return st.Memory.HeapBytes, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
