package views

import (
	"bytes"
	"context"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// CatchUp is the read model behind GET /workspaces/{ws}/catch-up.
type CatchUp struct {
	Window         CatchUpWindow
	NeedsYou       CatchUpSection
	Finished       CatchUpSection
	NewAndReopened CatchUpSection
	Comments       CatchUpSection
	Agents         CatchUpAgents
	Degraded       []string
}

// CatchUpWindow is the digest's span.
type CatchUpWindow struct {
	Since           string
	Until           string
	HasCursor       bool
	CappedAtCeiling bool
}

// CatchUpSection is a counted list of at most model.CatchUpLines lines.
type CatchUpSection struct {
	Total int
	Lines []CatchUpLine
}

// CatchUpLine is one thing that happened (or needs doing).
type CatchUpLine struct {
	Ref        string
	Title      string
	Collection string
	What       string
	Actor      string
	Agent      string
	At         string
}

// CatchUpAgents groups agent work by agent name.
type CatchUpAgents struct {
	Total  int
	Groups []CatchUpAgent
}

// CatchUpAgent is one agent's work in the window.
type CatchUpAgent struct {
	Agent   string
	Changes int
	Items   int
	Lines   []CatchUpLine
}

// CatchUpParams ask for the digest.
type CatchUpParams struct {
	Now    time.Time
	Caller model.Actor
}

// CatchUp is the caller's digest since its seen cursor (at most 14 days
// back): what needs the caller, what finished, what is new or reopened,
// comments, and agents' work by agent, leaving out the caller's own
// actions (PRJ-08). It never moves the cursor.
func (s *Views) CatchUp(ctx context.Context, ws string, p CatchUpParams) (*CatchUp, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	out := &CatchUp{}
	for _, sec := range []*CatchUpSection{&out.NeedsYou, &out.Finished, &out.NewAndReopened, &out.Comments} {
		sec.Lines = []CatchUpLine{}
	}
	out.Agents.Groups = []CatchUpAgent{}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
		if err != nil {
			return err
		}
		cursor := records.ReadSeen(r.WS, p.Caller)
		since, capped := model.CatchUpSince(cursor, p.Now)
		until := model.Truncate1s(p.Now)
		out.Window = CatchUpWindow{Since: records.FmtTime(since), Until: records.FmtTime(until), HasCursor: cursor != nil, CappedAtCeiling: capped}
		line := func(s *records.ItemSum, vc *vcoll, what string, a model.Activity) CatchUpLine {
			l := CatchUpLine{Ref: x.ref(s, vc), Title: s.Title, Collection: vc.Slug, What: what, At: records.FmtTime(a.CreatedAt)}
			if a.Actor.Kind == model.ActorAgent {
				l.Agent = a.Actor.Name
			} else {
				l.Actor = a.Actor.Name
			}
			return l
		}
		add := func(sec *CatchUpSection, l CatchUpLine) {
			sec.Total++
			if len(sec.Lines) < model.CatchUpLines {
				sec.Lines = append(sec.Lines, l)
			}
		}
		finished, fresh := map[string]bool{}, map[string]bool{}
		agents := map[string]*CatchUpAgent{}
		agentItems := map[string]map[string]bool{}
		var agentOrder []string
		err = eachActivity(r.WS, since, until.Add(time.Second), nil, func(a model.Activity) (bool, error) {
			if model.OwnAction(a.Actor, p.Caller) || a.Action == storage.ActionLeaseRenewed {
				return true, nil
			}
			k, ok := records.IDKey(a.ItemID)
			if !ok {
				return true, nil
			}
			sm, err := x.sums.Get(k)
			if err != nil || sm == nil {
				return err == nil, err
			}
			vc := x.colls[sm.CollectionID]
			if vc == nil {
				return true, nil
			}
			what := a.Action
			switch a.Action {
			case "created":
				if !fresh[sm.ID] {
					fresh[sm.ID] = true
					add(&out.NewAndReopened, line(sm, vc, "created", a))
				}
			case "commented":
				add(&out.Comments, line(sm, vc, "commented", a))
			case "updated":
				if from, to, ok := doneChange(a, vc.doneKey); ok {
					was, now := vc.state(from), vc.state(to)
					what = "marked " + to
					switch {
					case now != model.StateOpen && was == model.StateOpen && !finished[sm.ID]:
						finished[sm.ID] = true
						add(&out.Finished, line(sm, vc, what, a))
					case now == model.StateOpen && was != model.StateOpen && !fresh[sm.ID]:
						fresh[sm.ID] = true
						what = "reopened as " + to
						add(&out.NewAndReopened, line(sm, vc, what, a))
					}
				}
			}
			if a.Actor.Kind == model.ActorAgent {
				g := agents[a.Actor.Name]
				if g == nil {
					g = &CatchUpAgent{Agent: a.Actor.Name, Lines: []CatchUpLine{}}
					agents[a.Actor.Name], agentItems[a.Actor.Name] = g, map[string]bool{}
					agentOrder = append(agentOrder, a.Actor.Name)
				}
				g.Changes++
				agentItems[a.Actor.Name][sm.ID] = true
				if len(g.Lines) < model.CatchUpLines {
					g.Lines = append(g.Lines, line(sm, vc, what, a))
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, name := range agentOrder {
			g := agents[name]
			g.Items = len(agentItems[name])
			out.Agents.Groups = append(out.Agents.Groups, *g)
			out.Agents.Total += g.Changes
		}
		return x.needsYou(p.Caller, &out.NeedsYou, add)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// needsYou lists the caller's open work that unfinished work blocks:
// for the user, items assigned to a user (padd has one); for an agent,
// items it holds the lease on.
func (x *projectCtx) needsYou(caller model.Actor, sec *CatchUpSection, add func(*CatchUpSection, CatchUpLine)) error {
	var ids [][]byte
	if caller.Kind == model.ActorAgent {
		err := records.EachLiveLease(x.b, x.now, func(id []byte, l *model.Lease) error {
			if l.Holder == caller.Name {
				ids = append(ids, append([]byte(nil), id...))
			}
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		p := records.Cat([]byte{records.KindFieldAll}, records.Lstr(records.KeyAssignee))
		var streams [][]byte
		c := x.b.Counts().Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			if k[len(k)-1] == records.LifeLive {
				streams = append(streams, append([]byte(nil), k...))
			}
		}
		err := walkStreams(x.b, streams, false, func(suffix []byte, _ int) (bool, error) {
			ids = append(ids, append([]byte(nil), suffix[9:]...))
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	for _, id := range ids {
		if err := x.b.Check(); err != nil {
			return err
		}
		s, vc, _, ok, err := x.openWork(id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		blocker, bstatus, err := x.openBlocker(id)
		if err != nil {
			return err
		}
		if blocker == nil {
			continue
		}
		bvc := x.colls[blocker.CollectionID]
		what := "blocked by " + x.ref(blocker, bvc)
		if bstatus != "" {
			what += " (still " + bstatus + ")"
		}
		add(sec, CatchUpLine{Ref: x.ref(s, vc), Title: s.Title, Collection: vc.Slug, What: what})
	}
	return nil
}
