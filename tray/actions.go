package tray

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mcpinstall"
)

// stopWait bounds the wait for a stopping padd to exit (padd's own
// shutdown takes at most 10 s).
const stopWait = 20 * time.Second

// Do carries out a menu action. Long ones (start, stop, restart) run in
// the background and show as Busy meanwhile.
func (e *Engine) Do(a Action) {
	e.update(func(s *State) { s.Note = "" })
	switch a.Kind {
	case ActStart:
		go e.start(ConnStarting, "")
	case ActRestart:
		go e.restart()
	case ActStopAndQuit:
		go e.stopAndQuit()
	case ActQuitTray:
		e.quit.Do(e.o.Quit)
	case ActSelectWorkspace:
		e.mu.Lock()
		e.st.Current = a.Arg
		e.prefs.Workspace = a.Arg
		p := e.prefs.clone()
		e.mu.Unlock()
		if err := p.save(e.prefsPath()); err != nil {
			e.note("could not remember the workspace: %v", err)
		}
		signal(e.changed)
		signal(e.dirty)
	case ActCopyRef:
		if err := copyText(a.Arg2); err != nil {
			e.note("could not copy %s: %v", a.Arg2, err)
		}
	case ActSyncNow, ActSyncPause, ActSyncResume:
		go e.syncAction(a)
	case ActAgentToggle:
		go e.toggleAgent(a.Arg)
	case ActLoginToggle:
		go e.toggleLogin()
	case ActOpenLogs:
		if err := openPath(filepath.Join(e.o.DataDir, launch.LogFile)); err != nil {
			e.note("could not open the log: %v", err)
		}
	case ActOpenData:
		if err := openPath(e.o.DataDir); err != nil {
			e.note("could not open the data folder: %v", err)
		}
	}
}

// note shows an action's failure in the menu until the next action.
func (e *Engine) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	e.o.Log.Warn(msg)
	e.update(func(s *State) { s.Note = msg })
}

// start starts padd (the user asked) and has Run connect to it.
func (e *Engine) start(conn Conn, busy string) {
	e.update(func(s *State) { s.Conn, s.Busy = conn, busy })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: e.o.DataDir, Start: true, Padd: e.o.Padd})
	e.update(func(s *State) {
		s.Busy = ""
		if err != nil && s.Conn == ConnStarting {
			s.Conn, s.Since = ConnDown, time.Now()
		}
	})
	if err != nil {
		e.note("could not start padd: %v", err)
	}
	// Run connects now (a started padd stays Starting until it has).
	signal(e.kick)
}

// stopPadd asks padd to stop and waits for its process to end.
func (e *Engine) stopPadd() error {
	c, info := e.current()
	if c == nil {
		var err error
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, info, err = launch.Connect(ctx, launch.ConnectOptions{DataDir: e.o.DataDir})
		cancel()
		if err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil && !api.IsTransport(err) {
		return err
	}
	deadline := time.Now().Add(stopWait)
	for launch.ProcessAlive(info.PID) {
		if time.Now().After(deadline) {
			return fmt.Errorf("padd (pid %d) did not exit within %s of being asked to stop", info.PID, stopWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

func (e *Engine) restart() {
	e.update(func(s *State) { s.Busy = "Restarting padd…" })
	if _, err := padctlPath(e.o.Padctl); err == nil {
		// padctl's restart is the user's own: it knows the per-user
		// service, and falls back to a signal when padd does not listen.
		e.update(func(s *State) { s.Conn = ConnStarting })
		err := runPadctl(e.o, "daemon", "restart")
		e.update(func(s *State) {
			s.Busy = ""
			if err != nil {
				s.Conn, s.Since = ConnDown, time.Now()
			}
		})
		if err != nil {
			e.note("could not restart padd: %v", err)
		}
		signal(e.kick)
		return
	}
	if err := e.stopPadd(); err != nil {
		e.update(func(s *State) { s.Busy = "" })
		e.note("could not stop padd: %v", err)
		return
	}
	e.start(ConnStarting, "")
}

func (e *Engine) stopAndQuit() {
	e.update(func(s *State) { s.Busy = "Stopping padd…" })
	stop := e.stopPadd
	if _, err := padctlPath(e.o.Padctl); err == nil {
		stop = func() error { return runPadctl(e.o, "daemon", "stop") } // as for restart
	}
	if err := stop(); err != nil {
		e.update(func(s *State) { s.Busy = "" })
		e.note("could not stop padd: %v", err)
		return
	}
	e.quit.Do(e.o.Quit)
}

func (e *Engine) syncAction(a Action) {
	c, _ := e.current()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	act := map[ActionKind]func(context.Context, string) (*api.SyncStatus, error){
		ActSyncNow: c.SyncNow, ActSyncPause: c.SyncPause, ActSyncResume: c.SyncResume}[a.Kind]
	st, err := act(ctx, a.Arg)
	if err != nil {
		e.note("sync of %s: %v", a.Arg, err)
		return
	}
	e.update(func(s *State) {
		for i := range s.Sync {
			if s.Sync[i].Workspace == st.Workspace {
				s.Sync[i] = *st
			}
		}
	})
}

func (e *Engine) installOptions(client string) (mcpinstall.InstallOptions, error) {
	padctl, err := padctlPath(e.o.Padctl)
	if err != nil {
		return mcpinstall.InstallOptions{}, err
	}
	o := mcpinstall.InstallOptions{Client: client, Home: e.o.Home, Getenv: e.o.Getenv, Command: padctl}
	// As padctl's install: an agent's client starts its server without
	// our environment, so a data directory that is not the default one
	// travels in the entry.
	if e.o.Getenv("PAD_HOME") != "" || e.o.Getenv("XDG_DATA_HOME") != "" {
		o.Env = map[string]string{"PAD_HOME": e.o.DataDir}
	}
	return o, nil
}

func (e *Engine) toggleAgent(name string) {
	installed := false
	for _, a := range e.State().Agents {
		if a.Name == name {
			installed = a.Installed
		}
	}
	o, err := e.installOptions(name)
	if err == nil {
		if installed {
			_, err = mcpinstall.Uninstall(o)
		} else {
			_, err = mcpinstall.Install(o)
		}
	}
	var ie *mcpinstall.InstallError
	if errors.As(err, &ie) && ie.Hint != "" {
		err = fmt.Errorf("%s (%s)", ie.Message, ie.Hint)
	}
	if err != nil {
		e.note("could not set up %s: %v", name, err)
	}
	agents := readAgents(e.o)
	e.update(func(s *State) { s.Agents = agents })
}

func (e *Engine) toggleLogin() {
	cur := e.State().Login
	if !cur.Available {
		return
	}
	var err error
	if cur.Enabled {
		err = runPadctl(e.o, "daemon", "uninstall")
		if err == nil {
			err = removeAutostart(e.o)
		}
	} else {
		err = runPadctl(e.o, "daemon", "install")
		if err == nil {
			err = writeAutostart(e.o)
		}
	}
	if err != nil {
		e.note("Start at login: %v", err)
	}
	login := readLogin(e.o)
	e.update(func(s *State) { s.Login = login })
}
