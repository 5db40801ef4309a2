package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// What the sync routes ask of the engine (daemon's SyncEngine).

// Status is the status of one linked workspace, or of every one (ws "").
func (m *Manager) Status(ws string) ([]api.SyncStatus, error) {
	if ws != "" {
		w, l, err := m.linkedWorkspace(ws)
		if err != nil {
			return nil, err
		}
		return []api.SyncStatus{m.statusOf(w.ID, w.Slug, l)}, nil
	}
	linked, err := m.sync.LinkedWorkspaces()
	if err != nil {
		return nil, err
	}
	out := make([]api.SyncStatus, 0, len(linked))
	for _, l := range linked {
		out = append(out, m.statusOf(l.WorkspaceID, l.Slug, &l.Link))
	}
	return out, nil
}

// connect checks a remote before a link is made: the URL and token are
// good, and the workspace exists there.
func (m *Manager) connect(ctx context.Context, rawURL, token string, insecure bool, remoteWS string) (*remote.Client, *remote.Capabilities, *api.Workspace, error) {
	if strings.TrimSpace(token) == "" {
		return nil, nil, nil, model.Invalid("a remote token is required (--token-file, --token-env, or typed at the prompt)").With("field", "token")
	}
	if strings.TrimSpace(remoteWS) == "" {
		return nil, nil, nil, model.Invalid("name the remote workspace").With("field", "remote_workspace")
	}
	opts := m.cfg.Client
	opts.Insecure = insecure
	c, err := remote.New(rawURL, token, opts)
	if err != nil {
		return nil, nil, nil, model.Invalid("%v", err).With("field", "url")
	}
	caps, err := c.Probe(ctx)
	if err != nil {
		c.Close()
		return nil, nil, nil, remoteRefusal(err, rawURL)
	}
	rw, err := c.GetWorkspace(ctx, remoteWS)
	if err != nil {
		c.Close()
		if remote.IsNotFound(err) {
			return nil, nil, nil, model.NotFound("%s has no workspace %q (or this token cannot see it)", redactURL(rawURL), remoteWS).With("field", "remote_workspace")
		}
		return nil, nil, nil, remoteRefusal(err, rawURL)
	}
	return c, caps, rw, nil
}

// remoteRefusal says in padd's words why a remote could not be used.
func remoteRefusal(err error, rawURL string) error {
	switch {
	case remote.IsTokenRefused(err):
		return model.Invalid("%s refused the token; check it and try again", redactURL(rawURL)).With("reason", "token_refused")
	case remote.IsUnreachable(err) || remote.IsServerError(err) || remote.Retryable(err):
		return model.Invalid("%s could not be reached (%v); check the URL and the network", redactURL(rawURL), err).With("reason", "unreachable")
	}
	return model.Invalid("%s: %v", redactURL(rawURL), err).With("reason", "remote_refused")
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the remote"
	}
	u.User = nil
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// Clone makes a local workspace from a remote one and links it; the
// worker pulls it (the answer comes before the pull is done: Cloning).
func (m *Manager) Clone(ctx context.Context, in api.SyncClone) (*api.SyncStatus, error) {
	c, caps, rw, err := m.connect(ctx, in.URL, in.Token, in.InsecureHTTP, in.RemoteWorkspace)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	slug := strings.TrimSpace(in.As)
	if slug == "" {
		// Pad keeps a slug as it was given (an import's ?name= may hold
		// spaces); the local one is padd's canonical form of it.
		slug = model.WorkspaceSlug(rw.Slug, rw.Name)
	}
	if _, err := m.views.GetWorkspace(slug); err == nil {
		return nil, model.Conflict("a local workspace %q exists already; clone into a new one with --as <name>", slug).With("field", "as")
	}
	ws, err := m.store.CreateWorkspace(storage.WorkspaceCreate{Name: rw.Name, Slug: slug, Description: rw.Description, Template: "blank"},
		model.UserActor(model.SourceSync))
	if err != nil {
		return nil, err
	}
	link := storage.RemoteLink{BaseURL: c.BaseURL(), RemoteWorkspaceID: rw.ID, RemoteSlug: rw.Slug, TokenName: ws.ID,
		InsecureHTTP: in.InsecureHTTP, Bootstrap: storage.BootstrapClone}
	return m.link(ws, link, in.Token, caps)
}

// Link links a local workspace to an empty remote one; the worker pushes
// everything. Two workspaces with items each are never merged.
func (m *Manager) Link(ctx context.Context, in api.SyncLink) (*api.SyncStatus, error) {
	ws, err := m.views.GetWorkspace(in.Workspace)
	if err != nil {
		return nil, err
	}
	if l, err := m.sync.SyncLink(ws.ID); err != nil {
		return nil, err
	} else if l != nil {
		if l.BaseURL == strings.TrimSuffix(in.URL, "/") && (l.RemoteSlug == in.RemoteWorkspace || l.RemoteWorkspaceID == in.RemoteWorkspace) {
			return m.replaceToken(ctx, ws, l, in)
		}
		return nil, model.Conflict("workspace %q is already linked to %s; unlink it first (`padctl sync unlink %s`)", ws.Slug, l.BaseURL, ws.Slug)
	}
	c, caps, rw, err := m.connect(ctx, in.URL, in.Token, in.InsecureHTTP, in.RemoteWorkspace)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	idx, err := c.ItemsIndex(ctx, rw.ID)
	if err != nil {
		return nil, remoteRefusal(err, in.URL)
	}
	if n := len(idx.Items); n > 0 {
		return nil, model.Conflict("the remote workspace %q has %d items, so padd will not merge two histories into one: clone it into a new local workspace instead (`padctl sync clone %s %s --as <name>`)",
			rw.Slug, n, redactURL(in.URL), rw.Slug).With("reason", "remote_not_empty")
	}
	link := storage.RemoteLink{BaseURL: c.BaseURL(), RemoteWorkspaceID: rw.ID, RemoteSlug: rw.Slug, TokenName: ws.ID,
		InsecureHTTP: in.InsecureHTTP, Bootstrap: storage.BootstrapPush}
	return m.link(ws, link, in.Token, caps)
}

// replaceToken is `sync link` again on a linked workspace: a new token
// for the same remote, after it refused the old one.
func (m *Manager) replaceToken(ctx context.Context, ws *model.Workspace, l *storage.RemoteLink, in api.SyncLink) (*api.SyncStatus, error) {
	c, _, _, err := m.connect(ctx, l.BaseURL, in.Token, l.InsecureHTTP || in.InsecureHTTP, l.RemoteWorkspaceID)
	if err != nil {
		return nil, err
	}
	c.Close()
	if err := remote.SaveToken(m.cfg.DataDir, l.TokenName, in.Token); err != nil {
		return nil, err
	}
	m.stop(ws.ID)
	if err := m.sync.UpdateSyncLink(ws.ID, func(l *storage.RemoteLink) error { l.State = storage.LinkActive; return nil }); err != nil {
		return nil, err
	}
	m.start(ws.ID, ws.Slug)
	return m.one(ws.ID)
}

func (m *Manager) link(ws *model.Workspace, link storage.RemoteLink, token string, caps *remote.Capabilities) (*api.SyncStatus, error) {
	if err := remote.SaveToken(m.cfg.DataDir, link.TokenName, token); err != nil {
		return nil, err
	}
	if len(caps.Raw) <= storage.MaxProbeBytes && json.Valid(caps.Raw) {
		link.LastProbe = caps.Raw
	}
	if err := m.sync.LinkSync(ws.ID, link); err != nil {
		return nil, err
	}
	m.start(ws.ID, ws.Slug)
	return m.one(ws.ID)
}

func (m *Manager) one(wsID string) (*api.SyncStatus, error) {
	st, err := m.Status(wsID)
	if err != nil {
		return nil, err
	}
	return &st[0], nil
}

// Unlink ends a workspace's link and forgets its token; the local data
// stays as it is.
func (m *Manager) Unlink(ws string) error {
	w, l, err := m.linkedWorkspace(ws)
	if err != nil {
		return err
	}
	m.stop(w.ID)
	if err := m.sync.UnlinkSync(w.ID); err != nil {
		return err
	}
	if err := remote.DeleteToken(m.cfg.DataDir, l.TokenName); err != nil {
		m.log.Warn("sync: the unlinked workspace's token file could not be removed", "workspace", w.Slug, "err", err)
	}
	return nil
}

// Now syncs a workspace at once (and resumes one stopped by a refused
// token or a gone remote: the user acted).
func (m *Manager) Now(ws string) (*api.SyncStatus, error) {
	w, l, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	if l.State == storage.LinkPaused {
		return nil, model.Conflict("sync of %q is paused; resume it (`padctl sync resume %s`)", w.Slug, w.Slug)
	}
	return m.setState(w, storage.LinkActive)
}

// Pause stops a workspace's sync until Resume; local writes queue up.
func (m *Manager) Pause(ws string) (*api.SyncStatus, error) {
	w, _, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	return m.setState(w, storage.LinkPaused)
}

// Resume restarts a paused (or stopped) workspace's sync.
func (m *Manager) Resume(ws string) (*api.SyncStatus, error) {
	w, _, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	return m.setState(w, storage.LinkActive)
}

func (m *Manager) setState(ws *model.Workspace, s storage.LinkState) (*api.SyncStatus, error) {
	if err := m.sync.UpdateSyncLink(ws.ID, func(l *storage.RemoteLink) error { l.State = s; return nil }); err != nil {
		return nil, err
	}
	w := m.start(ws.ID, ws.Slug)
	switch {
	case w == nil:
	case s == storage.LinkPaused:
		w.interrupt()
	default:
		w.now()
	}
	return m.one(ws.ID)
}

// Conflicts lists a workspace's open conflicts and set-aside changes
// (all: the settled ones too).
func (m *Manager) Conflicts(ws string, all bool) ([]api.SyncConflict, error) {
	w, _, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	cs, err := m.sync.SyncConflicts(w.ID, !all)
	if err != nil {
		return nil, err
	}
	out := make([]api.SyncConflict, 0, len(cs))
	for _, c := range cs {
		out = append(out, m.wireConflict(w.ID, c))
	}
	return out, nil
}

// Resolve settles an item's open conflicts (or one of them). Keeping
// the remote's value changes nothing in the item; keeping the local one
// (or a merge the user edited) writes it as a local change, which the
// engine pushes like any other. For a part padd holds past its limits
// (held.go), keeping the remote's leaves it held (the remote keeps its
// value, padd its own); keeping padd's (or a merge) sends padd's over
// the remote's.
func (m *Manager) Resolve(ctx context.Context, ws string, in api.SyncResolve) ([]api.SyncConflict, error) {
	w, _, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	var how storage.ConflictState
	switch in.Keep {
	case api.KeepRemote:
		how = storage.ResolvedKeepRemote
	case api.KeepLocal:
		how = storage.ResolvedKeepLocal
	case api.KeepMerged:
		how = storage.ResolvedMerged
		if len(in.Value) == 0 {
			return nil, model.Invalid("a merged resolution needs its value").With("field", "value")
		}
	default:
		return nil, model.Invalid("keep must be local, remote or merged, not %q", in.Keep).With("field", "keep")
	}
	if in.Keep != api.KeepMerged && len(in.Value) > 0 {
		return nil, model.Invalid("a value goes only with keep merged").With("field", "value")
	}
	item, err := m.views.GetItem(w.ID, in.Ref)
	if err != nil {
		return nil, err
	}
	var out []api.SyncConflict
	released := false // a held part's value is to go: the next cycle's drain sends it
	settle := func() error {
		cs, err := m.sync.SyncConflicts(w.ID, true)
		if err != nil {
			return err
		}
		base, err := m.sync.SyncBase(w.ID, item.ID)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.ItemID != item.ID || in.ID != 0 && c.ID != in.ID {
				continue
			}
			var done *storage.SyncConflict
			if how != storage.ResolvedKeepRemote && c.Kind == storage.EntrySetAside && base != nil && slices.Contains(base.Held, c.Part) {
				// A part padd held past its limits (held.go): padd's value
				// (or the merged one) goes to the remote over the remote's.
				done, err = m.store.ResolveSyncConflictWith(w.ID, c.ID, how, model.UserActor(model.SourceAPI), func(l *storage.LocalWrite) error {
					if how == storage.ResolvedMerged {
						if err := writePart(l, item.ID, c.Part, in.Value); err != nil {
							return err
						}
					}
					ok, err := l.ReleaseHeld(item.ID, c.Part)
					released = released || ok
					return err
				})
			} else if how != storage.ResolvedKeepRemote && c.Kind == storage.EntryConflict {
				value := c.Local
				if how == storage.ResolvedMerged {
					value = in.Value
				}
				done, err = m.store.ResolveSyncConflictWith(w.ID, c.ID, how, model.UserActor(model.SourceAPI), func(l *storage.LocalWrite) error {
					return writePart(l, item.ID, c.Part, value)
				})
			} else {
				done, err = m.sync.ResolveSyncConflict(w.ID, c.ID, how)
			}
			if err != nil {
				return err
			}
			out = append(out, m.wireConflict(w.ID, *done))
		}
		return nil
	}
	wk := m.worker(w.ID)
	if base, err := m.sync.SyncBase(w.ID, item.ID); err != nil {
		return nil, err
	} else if wk != nil && how != storage.ResolvedKeepRemote && base != nil && len(base.Held) > 0 {
		// A release changes the base a push is made on: it is made
		// between cycles, so that no push made on the older base lands
		// after it and writes the hold back.
		err = wk.between(settle)
	} else {
		err = settle()
	}
	if err != nil {
		return out, err
	}
	if len(out) == 0 {
		return nil, model.NotFound("item %s has no open sync conflict", in.Ref)
	}
	if wk != nil {
		wk.publishStatus()
		if released {
			wk.poke()
		}
	}
	return out, nil
}

// writePart writes one part's value into an item as a local change.
func writePart(l *storage.LocalWrite, itemID, part string, raw json.RawMessage) error {
	var u storage.ItemUpdate
	decode := func(into any) error {
		if err := json.Unmarshal(raw, into); err != nil {
			return model.Invalid("the value for %s is not valid: %v", part, err).With("field", "value")
		}
		return nil
	}
	switch {
	case part == "title" || part == "content":
		var s string
		if err := decode(&s); err != nil {
			return err
		}
		if part == "title" {
			u.Title = &s
		} else {
			u.Content = &s
		}
	case strings.HasPrefix(part, "fields."):
		v, err := model.DecodeJSON(raw)
		if err != nil {
			return model.Invalid("the value for %s is not JSON: %v", part, err).With("field", "value")
		}
		u.FieldsPatch = map[string]any{strings.TrimPrefix(part, "fields."): v}
	case part == "tags":
		var tags []string
		if err := decode(&tags); err != nil {
			return err
		}
		u.Tags = &tags
	case part == "pinned":
		var b bool
		if err := decode(&b); err != nil {
			return err
		}
		u.Pinned = &b
	case part == "parent":
		var p string
		if err := decode(&p); err != nil {
			return err
		}
		if p == "" {
			u.ClearParent = true
		} else {
			u.Parent = &p
		}
	case part == "archived":
		var b bool
		if err := decode(&b); err != nil {
			return err
		}
		return l.SetArchived(itemID, b)
	case part == "collection":
		var c string
		if err := decode(&c); err != nil {
			return err
		}
		return l.MoveItem(itemID, storage.MoveInput{Target: c, Force: true})
	case strings.HasPrefix(part, "comment:"):
		var body string
		if err := decode(&body); err != nil {
			return err
		}
		return l.EditComment(itemID, strings.TrimPrefix(part, "comment:"), body)
	case part == "deleted":
		return nil // the item is alive here: the engine creates it on the remote again
	default:
		return errors.New("unknown conflict part " + part)
	}
	u.Force = true
	return l.UpdateItem(itemID, u)
}
