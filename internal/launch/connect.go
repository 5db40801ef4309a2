package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// ConnectOptions say how to find padd.
type ConnectOptions struct {
	DataDir string        // "" = DataDir()
	Start   bool          // start padd when none answers
	Padd    string        // padd binary; "" = beside this executable, else on PATH
	Wait    time.Duration // how long to wait for a starting padd (default 10s)
}

// Connect finds the running padd through daemon.json and checks that it
// answers. With Start, a padd that is not running is started detached and
// waited for; a daemon.json left by a crashed padd (dead pid) is ignored.
func Connect(ctx context.Context, o ConnectOptions) (*api.Client, *Info, error) {
	dir := o.DataDir
	if dir == "" {
		d, err := DataDir()
		if err != nil {
			return nil, nil, err
		}
		dir = d
	}
	if o.Wait == 0 {
		o.Wait = 10 * time.Second
	}
	if c, info, err := answering(ctx, dir); err == nil {
		return c, info, nil
	}
	if !o.Start {
		return nil, nil, fmt.Errorf("padd is not running for %s; start it with `padctl daemon start`", dir)
	}
	return startPadd(ctx, dir, o)
}

// answering returns a client for the padd named in daemon.json if its
// process is alive and it answers health with the announced token.
func answering(ctx context.Context, dir string) (*api.Client, *Info, error) {
	info, err := ReadInfo(dir)
	if err != nil {
		return nil, nil, err
	}
	if !ProcessAlive(info.PID) {
		return nil, nil, fmt.Errorf("daemon.json names pid %d, which is not running (a crashed padd)", info.PID)
	}
	c := api.NewClient(info.URL(), info.Token)
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// An authenticated call: it proves both that padd answers and that
	// the token is right.
	if _, err := c.Do(hctx, "GET", "/auth/me", nil, nil, nil); err != nil {
		return nil, nil, err
	}
	return c, info, nil
}

// PaddPath finds the padd binary: beside the running executable first,
// then on PATH.
func PaddPath(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	p, err := Sibling("padd")
	if err != nil {
		return "", errors.New("cannot find the padd binary beside padctl or on PATH; install padd or put it on PATH")
	}
	return p, nil
}

// Sibling finds one of padd's binaries (padd, padctl, padtray) by name:
// beside the running executable first, then on PATH.
func Sibling(name string) (string, error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

func startPadd(ctx context.Context, dir string, o ConnectOptions) (*api.Client, *Info, error) {
	bin, err := PaddPath(o.Padd)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	// padd's own early failures (before its log is open) land here.
	errPath := filepath.Join(dir, StartErrFile)
	errFile, err := os.OpenFile(errPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer errFile.Close()
	cmd := exec.Command(bin, "--quiet")
	cmd.Env = append(os.Environ(), "PAD_HOME="+dir)
	cmd.Stdout, cmd.Stderr = nil, errFile
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(o.Wait)
	for time.Now().Before(deadline) {
		if c, info, err := answering(ctx, dir); err == nil {
			info.Launched = true
			return c, info, nil
		}
		select {
		case err := <-exited:
			// Lost a start race to another padd: use that one.
			if c, info, aerr := waitAnswering(ctx, dir, time.Until(deadline)); aerr == nil {
				return c, info, nil
			}
			msg, _ := os.ReadFile(errPath)
			return nil, nil, fmt.Errorf("padd exited while starting (%v): %s; see %s", err, strings.TrimSpace(string(msg)), filepath.Join(dir, LogFile))
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	return nil, nil, fmt.Errorf("padd did not answer within %s of starting; see %s", o.Wait, filepath.Join(dir, LogFile))
}

func waitAnswering(ctx context.Context, dir string, d time.Duration) (*api.Client, *Info, error) {
	deadline := time.Now().Add(d)
	for {
		c, info, err := answering(ctx, dir)
		if err == nil || time.Now().After(deadline) {
			return c, info, err
		}
		time.Sleep(25 * time.Millisecond)
	}
}
