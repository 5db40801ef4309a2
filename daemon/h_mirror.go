package daemon

import (
	"net/http"
	"path/filepath"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
	"github.com/padd/padd/internal/eventbus"
	"github.com/padd/padd/mirror"
	"github.com/padd/padd/model"
)

// Mirror folders (docs/MIRROR.md) and padd.toml's state, on padd's own API.

// maxMirrorDir bounds a mirror directory's path in a request.
const maxMirrorDir = 4096

func (s *Server) mirrorRoutes() {
	s.handle("GET /api/v1/padd/mirrors", s.mirrorList)
	s.handle("POST /api/v1/padd/mirrors", s.mirrorAdd)
	s.handle("POST /api/v1/padd/mirrors/remove", s.mirrorRemove)
	s.handle("GET /api/v1/padd/config", s.configStatus)
	s.handle("GET "+mirrorEventsPath, s.mirrorEvents)
}

// filesSide is what the server holds of the mirrors and padd.toml.
type filesSide struct {
	mirrors *mirror.Manager
	config  *config.Watcher
	events  *eventHub
	port    int // the port padd serves on (0 in tests without a listener)
}

// mirrorEventsPath is the stream of mirror and settings events.
const mirrorEventsPath = "/api/v1/padd/mirrors/events"

// SetMirrors gives the server its mirrors, its settings, the hub their
// events reach and the port it serves on. Call it before the server serves.
func (s *Server) SetMirrors(m *mirror.Manager, c *config.Watcher, events *eventHub, port int) {
	s.files = filesSide{mirrors: m, config: c, events: events, port: port}
}

func (s *Server) mirrorManager() (*mirror.Manager, error) {
	if s.files.mirrors == nil {
		return nil, api.Errorf(api.CodeUnavailable, "mirror folders are not available in this padd; `padctl daemon restart` starts a padd that has them").
			With("reason", "mirror_unavailable")
	}
	return s.files.mirrors, nil
}

func (s *Server) mirrorList(w http.ResponseWriter, r *http.Request) error {
	m, err := s.mirrorManager()
	if err != nil {
		return err
	}
	out := api.Mirrors{Mirrors: []api.Mirror{}}
	for _, st := range m.List() {
		out.Mirrors = append(out.Mirrors, s.wireMirror(st))
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) wireMirror(st mirror.Status) api.Mirror {
	out := api.Mirror{ID: st.ID, Workspace: st.WorkspaceID, Dir: st.Dir, State: st.State, Files: st.Files, Cursor: st.Cursor,
		Errors: []api.MirrorFileError{}, Conflicts: append([]string{}, st.Conflicts...)}
	if ws, err := s.views.GetWorkspace(st.WorkspaceID); err == nil {
		out.Workspace = ws.Slug
	}
	for _, e := range st.Errors {
		out.Errors = append(out.Errors, api.MirrorFileError{Path: e.Path, Error: e.Error, At: e.At})
	}
	return out
}

// mirrorSpec reads and checks a request's workspace and directory.
func mirrorSpec(r *http.Request) (api.MirrorSpec, error) {
	var in api.MirrorSpec
	if err := decodeBody(r, &in); err != nil {
		return in, err
	}
	if in.Workspace == "" {
		return in, model.Invalid("workspace is required").With("field", "workspace")
	}
	if len(in.Workspace) > model.LimitSlug.Max {
		return in, model.Invalid("workspace is longer than %d characters", model.LimitSlug.Max).With("field", "workspace")
	}
	if in.Dir == "" || !filepath.IsAbs(in.Dir) {
		return in, model.Invalid("dir must be an absolute directory, not %q", in.Dir).With("field", "dir")
	}
	if len(in.Dir) > maxMirrorDir {
		return in, model.Invalid("dir is longer than %d bytes", maxMirrorDir).With("field", "dir")
	}
	return in, nil
}

func (s *Server) mirrorAdd(w http.ResponseWriter, r *http.Request) error {
	m, err := s.mirrorManager()
	if err != nil {
		return err
	}
	in, err := mirrorSpec(r)
	if err != nil {
		return err
	}
	st, err := m.Add(in.Workspace, in.Dir)
	if err != nil {
		return err
	}
	writeJSON(w, 201, s.wireMirror(*st))
	return nil
}

func (s *Server) mirrorRemove(w http.ResponseWriter, r *http.Request) error {
	m, err := s.mirrorManager()
	if err != nil {
		return err
	}
	in, err := mirrorSpec(r)
	if err != nil {
		return err
	}
	if err := m.Remove(in.Workspace, in.Dir); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) configStatus(w http.ResponseWriter, r *http.Request) error {
	if s.files.config == nil {
		return api.Errorf(api.CodeUnavailable, "this padd runs without its settings file").With("reason", "config_unavailable")
	}
	writeJSON(w, 200, wireConfig(s.files.config, s.files.port))
	return nil
}

// wireConfig is the settings in force. The port in force is the one padd
// serves on (port), whatever padd.toml says now: an unset port is not 0,
// and a changed one waits for a restart (RestartToApply says so).
func wireConfig(c *config.Watcher, port int) api.ConfigStatus {
	st, cur := c.Status(), c.Settings()
	if port == 0 {
		port = cur.Port
	}
	return api.ConfigStatus{Path: st.Path, Error: st.Error, RestartToApply: st.Restart, Unknown: st.Unknown,
		LoadedAt: st.LoadedAt, Settings: map[string]any{"log_level": cur.Level().String(), "port": port,
			"mirror": map[string]any{"on_delete": cur.Mirror.OnDelete}}}
}

// eventHub fans the mirrors' and the settings' events out to the
// streams following them; a slow stream loses its oldest, never blocks
// the mirror.
type eventHub = eventbus.Bus[hubEvent]

type hubEvent struct {
	name string
	data any
}

// wireFilesEvents connects the mirrors' and the settings' events to hub.
func wireFilesEvents(hub *eventHub, c *config.Watcher, port int) func(mirror.Event) {
	c.OnError(func(error) { hub.Publish(hubEvent{api.EventConfigError, wireConfig(c, port)}) })
	c.OnChange(func(config.Settings) { hub.Publish(hubEvent{api.EventConfigReloaded, wireConfig(c, port)}) })
	return func(e mirror.Event) {
		name := api.EventMirrorFileError
		if e.Kind == mirror.EventConflict {
			name = api.EventMirrorConflict
		}
		hub.Publish(hubEvent{name, api.MirrorEvent{Mirror: e.MirrorID, Dir: e.Dir, Path: e.Path, Error: e.Error, Copy: e.Copy}})
	}
}

// mirrorEvents streams each mirror's state, then the mirrors' and the
// settings' events as they happen.
func (s *Server) mirrorEvents(w http.ResponseWriter, r *http.Request) error {
	m, err := s.mirrorManager()
	if err != nil || s.files.events == nil {
		return err
	}
	release, ok := s.sse.admit(s.limits, "")
	if !ok {
		refuseStream(w)
		return nil
	}
	defer release()
	events, cancel := s.files.events.Subscribe()
	defer cancel()
	list := m.List()
	sw := s.openStream(w)
	defer sw.clearDeadline()
	if sw.event(nil, "connected", map[string]int{"mirrors": len(list)}) != nil {
		return nil
	}
	for _, st := range list {
		if sw.event(nil, api.EventMirrorStatus, s.wireMirror(st)) != nil {
			return nil
		}
	}
	relayEvents(s, r, sw, events, func(ev hubEvent) error { return sw.event(nil, ev.name, ev.data) })
	return nil
}
