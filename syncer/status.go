package syncer

import (
	"encoding/json"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
)

// statusOf is a linked workspace's status: the link's state, the
// worker's phase, and the counts from the store.
func (m *Manager) statusOf(wsID, slug string, link *storage.RemoteLink) api.SyncStatus {
	st := api.SyncStatus{Workspace: slug, URL: link.BaseURL, RemoteWorkspace: link.RemoteSlug,
		Cloning: link.Bootstrap == storage.BootstrapClone}
	if st.RemoteWorkspace == "" {
		st.RemoteWorkspace = link.RemoteWorkspaceID
	}
	if n, err := m.sync.OutboxLen(wsID); err == nil {
		st.Pending = n
	}
	if cs, err := m.sync.SyncConflicts(wsID, true); err == nil {
		for _, c := range cs {
			if c.Kind == storage.EntrySetAside {
				st.SetAside++
			} else {
				st.Conflicts++
			}
		}
	}
	exchange := link.LastExchange
	switch link.State {
	case storage.LinkPaused:
		st.State = api.SyncPaused
	case storage.LinkTokenRefused:
		st.State = api.SyncTokenRefused
	case storage.LinkRemoteGone:
		st.State = api.SyncRemoteGone
	default:
		st.State = api.SyncPulling
	}
	if w := m.worker(wsID); w != nil {
		w.mu.Lock()
		if link.State == storage.LinkActive {
			st.State = w.phase
			if st.State == api.SyncSynced && st.Pending > 0 {
				st.State = api.SyncPushing
			}
		}
		st.LastError = w.lastErr
		st.Live = w.live && link.State == storage.LinkActive
		st.OfflineSince = timep(w.offlineSince)
		st.NextTry = timep(w.nextTry)
		st.Waiting = w.waiting
		if w.lastExchange.After(exchange) {
			exchange = w.lastExchange
		}
		if w.caps != nil {
			st.RemoteVersion, st.Capabilities = w.caps.Version, w.caps.Names
		}
		if w.attach == attachOff {
			st.NotSynced = api.SyncNotCarried
		}
		w.mu.Unlock()
	}
	st.LastExchange = timep(exchange)
	if st.RemoteVersion == "" && len(link.LastProbe) > 0 {
		var c struct {
			Version      string   `json:"version"`
			Capabilities []string `json:"capabilities"`
		}
		if json.Unmarshal(link.LastProbe, &c) == nil {
			st.RemoteVersion, st.Capabilities = c.Version, c.Capabilities
		}
	}
	return st
}

func timep(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// publishStatus tells subscribers the worker's status when it changed,
// and each conflict recorded since the last time.
func (w *worker) publishStatus() {
	link, err := w.m.sync.SyncLink(w.wsID)
	if err != nil || link == nil {
		return
	}
	st := w.m.statusOf(w.wsID, w.slug, link)
	b, _ := json.Marshal(st)
	w.mu.Lock()
	changed := string(b) != w.published
	w.published = string(b)
	seen := w.seenConflict
	w.mu.Unlock()
	if changed {
		w.m.publish(api.SyncEvent{Name: api.EventSyncStatus, Status: &st})
	}
	if st.Conflicts+st.SetAside == 0 {
		return
	}
	cs, err := w.m.sync.SyncConflicts(w.wsID, true)
	if err != nil {
		return
	}
	for _, c := range cs {
		if c.ID <= seen {
			continue
		}
		ac := w.m.wireConflict(w.wsID, c)
		w.m.publish(api.SyncEvent{Name: api.EventSyncConflict, Conflict: &ac})
		seen = max(seen, c.ID)
	}
	w.mu.Lock()
	w.seenConflict = max(w.seenConflict, seen)
	w.mu.Unlock()
}

// wireConflict is a stored conflict as the API shows it, with its
// item's ref and title.
func (m *Manager) wireConflict(wsID string, c storage.SyncConflict) api.SyncConflict {
	out := api.SyncConflict{ID: c.ID, Kind: string(c.Kind), Part: c.Part, Base: c.Base, Local: c.Local,
		Remote: c.Remote, Truncated: c.Truncated, LocalVersion: c.LocalVersionSeq, Reason: c.Reason, At: c.At,
		State: string(c.State), ResolvedAt: timep(c.ResolvedAt)}
	if c.ItemID != "" {
		if v, err := m.views.GetItem(wsID, c.ItemID); err == nil {
			out.Ref, out.Title = v.Ref, v.Title
		}
	}
	return out
}
