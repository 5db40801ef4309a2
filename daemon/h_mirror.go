package daemon

import (
	"net/http"
	"path/filepath"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
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
}

// SetMirrors gives the server its mirrors and settings. Call it before
// the server serves.
func (s *Server) SetMirrors(m *mirror.Manager, c *config.Watcher) { s.mirrors, s.config = m, c }

func (s *Server) mirrorManager() (*mirror.Manager, error) {
	if s.mirrors == nil {
		return nil, api.Errorf(api.CodeUnavailable, "mirror folders are not available in this padd; `padctl daemon restart` starts a padd that has them").
			With("reason", "mirror_unavailable")
	}
	return s.mirrors, nil
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
	if ws, err := s.store.GetWorkspace(st.WorkspaceID); err == nil {
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
	if s.config == nil {
		return api.Errorf(api.CodeUnavailable, "this padd runs without its settings file").With("reason", "config_unavailable")
	}
	st, cur := s.config.Status(), s.config.Settings()
	writeJSON(w, 200, api.ConfigStatus{Path: st.Path, Error: st.Error, RestartToApply: st.Restart, Unknown: st.Unknown,
		LoadedAt: st.LoadedAt, Settings: map[string]any{"log_level": cur.Level().String(), "port": cur.Port,
			"mirror": map[string]any{"on_delete": cur.Mirror.OnDelete}}})
	return nil
}
