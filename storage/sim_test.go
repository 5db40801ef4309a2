package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

// TestRandomOpsAgainstModel runs long random sequences of writes against
// the store and against a plain in-memory model of the same rules, and
// after every step compares the two through random list queries (the
// index engine's filters, ordering and paging) and point reads.

type simItem struct {
	id, coll, title string
	number          int64
	status, prio    string
	tags            []string
	parent          string
	pinned          bool
	archived        bool
	updated         time.Time
	created         time.Time
}

type sim struct {
	t     *testing.T
	r     *rand.Rand
	s     *Store
	clk   *testClock
	ws    string
	items map[string]*simItem
	order []string // ids in creation order
	next  int64
}

var simStatus = map[string][]string{
	"tasks": {"open", "in-progress", "done", "cancelled"},
	"ideas": {"new", "exploring", "planned", "implemented", "rejected"},
	"plans": {"planned", "active", "completed", "paused"},
}

var simTerminal = map[string][]string{"tasks": {"done", "cancelled"}, "ideas": {"implemented", "rejected"}, "plans": {"completed"}}

var simTags = []string{"auth", "ui", "perf", "db"}

func (m *sim) pick(live bool) *simItem {
	var c []*simItem
	for _, id := range m.order {
		if it := m.items[id]; it.archived != live {
			c = append(c, it)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[m.r.IntN(len(c))]
}

func (m *sim) tick() time.Time {
	m.clk.advance(time.Duration(m.r.IntN(3)) * 700 * time.Millisecond)
	return model.Truncate1s(m.clk.t)
}

func (m *sim) create() {
	coll := []string{"tasks", "tasks", "ideas", "plans"}[m.r.IntN(4)]
	it := &simItem{coll: coll, title: fmt.Sprintf("item %d %s", m.next, simTags[m.r.IntN(4)])}
	in := ItemCreate{Collection: coll, Title: it.title, Fields: map[string]any{}}
	it.status = simStatus[coll][0]
	if m.r.IntN(2) == 0 {
		it.status = simStatus[coll][m.r.IntN(len(simStatus[coll]))]
		in.Fields["status"] = it.status
	}
	if coll == "tasks" {
		it.prio = "medium"
		if m.r.IntN(2) == 0 {
			it.prio = []string{"low", "medium", "high", "critical"}[m.r.IntN(4)]
			in.Fields["priority"] = it.prio
		}
	}
	for _, t := range simTags {
		if m.r.IntN(4) == 0 {
			it.tags = append(it.tags, t)
		}
	}
	in.Tags = it.tags
	if p := m.pick(true); p != nil && m.r.IntN(4) == 0 {
		it.parent, in.Parent = p.id, p.id
	}
	if m.r.IntN(8) == 0 {
		it.pinned, in.Pinned = true, true
	}
	it.updated = m.tick()
	it.created = it.updated
	r, err := m.s.CreateItem(m.ws, in, user)
	if err != nil {
		m.t.Fatalf("create %+v: %v", in, err)
	}
	m.next++
	it.id, it.number = r.Item.ID, r.Item.Number
	if it.number != m.next {
		m.t.Fatalf("item number %d, want %d (workspace-wide counter)", it.number, m.next)
	}
	m.items[it.id] = it
	m.order = append(m.order, it.id)
}

func (m *sim) update() {
	it := m.pick(true)
	if it == nil {
		return
	}
	var up ItemUpdate
	patch := map[string]any{}
	switch m.r.IntN(5) {
	case 0:
		it.status = simStatus[it.coll][m.r.IntN(len(simStatus[it.coll]))]
		patch["status"] = it.status
		up.Force = true // the open-children guard has its own tests
	case 1:
		if it.coll == "tasks" {
			it.prio = []string{"low", "high", "critical"}[m.r.IntN(3)]
			patch["priority"] = it.prio
		} else {
			it.title += " x"
			up.Title = &it.title
		}
	case 2:
		it.tags = nil
		for _, t := range simTags {
			if m.r.IntN(3) == 0 {
				it.tags = append(it.tags, t)
			}
		}
		tags := slices.Clone(it.tags)
		up.Tags = &tags
	case 3:
		it.pinned = !it.pinned
		up.Pinned = &it.pinned
	case 4:
		if it.parent != "" {
			it.parent = ""
			up.ClearParent = true
		} else if p := m.pick(true); p != nil && p.id != it.id && !m.descends(p.id, it.id) {
			it.parent = p.id
			up.Parent = &p.id
		} else {
			return
		}
	}
	if len(patch) > 0 {
		up.FieldsPatch = patch
	}
	stored, _ := rd(m.s).GetItem(m.ws, it.id)
	before := stored.UpdatedAt
	now := m.tick()
	r, err := m.s.UpdateItem(m.ws, it.id, up, user)
	if err != nil {
		m.t.Fatalf("update %s: %v", it.id, err)
	}
	if r.Changed {
		it.updated = now
	} else {
		it.updated = before
	}
}

// descends reports whether id is p or below it in the model's tree.
func (m *sim) descends(p, id string) bool {
	for cur := p; cur != ""; cur = m.items[cur].parent {
		if cur == id {
			return true
		}
	}
	return false
}

func (m *sim) archive() {
	if it := m.pick(m.r.IntN(3) != 0); it != nil {
		it.updated = m.tick()
		var err error
		if it.archived {
			_, err = m.s.RestoreItem(m.ws, it.id, user)
		} else {
			_, err = m.s.DeleteItem(m.ws, it.id, user)
		}
		if err != nil {
			m.t.Fatal(err)
		}
		it.archived = !it.archived
	}
}

func (m *sim) move() {
	it := m.pick(true)
	if it == nil || it.coll == "plans" {
		return
	}
	to := map[string]string{"tasks": "ideas", "ideas": "tasks"}[it.coll]
	status := simStatus[to][m.r.IntN(len(simStatus[to]))]
	it.updated = m.tick()
	if _, err := m.s.MoveItem(m.ws, it.id, MoveInput{Target: to, Fields: map[string]any{"status": status}, Force: true}, user); err != nil {
		m.t.Fatalf("move %s to %s: %v", it.id, to, err)
	}
	it.coll, it.status = to, status
	if to == "tasks" {
		it.prio = "medium" // the destination's default: ideas carry no priority
	} else {
		it.prio = ""
	}
}

// refused tries writes the store must refuse and checks they leave no
// trace: the workspace seq and the item do not move.
func (m *sim) refused() {
	it := m.pick(true)
	if it == nil {
		return
	}
	head, _ := rd(m.s).Head(m.ws)
	bad := "not-a-status"
	stale := int64(1)
	for _, up := range []ItemUpdate{
		{FieldsPatch: map[string]any{"status": bad}},
		{FieldsPatch: map[string]any{"implementation_notes": "x"}},
		{Title: ptrTo("moved"), ExpectedSeq: &stale},
	} {
		if _, err := m.s.UpdateItem(m.ws, it.id, up, user); err == nil {
			if up.ExpectedSeq != nil && m.s != nil {
				if got, _ := rd(m.s).GetItem(m.ws, it.id); got.Seq == 1 {
					continue // seq 1 really is current: not stale
				}
			}
			m.t.Fatalf("update %+v was accepted", up)
		}
	}
	if h, _ := rd(m.s).Head(m.ws); h != head {
		m.t.Fatalf("refused writes moved the seq %d -> %d", head, h)
	}
}

// query is a random list request and the model's answer to it.
func (m *sim) query() (ListParams, []string) {
	p := ListParams{Limit: 1 + m.r.IntN(12), Offset: m.r.IntN(4) * 3}
	if m.r.IntN(3) > 0 {
		p.Collection = []string{"tasks", "ideas", "plans", "task"}[m.r.IntN(4)]
	}
	if m.r.IntN(3) == 0 {
		coll := p.Collection
		if coll == "" || coll == "task" {
			coll = "tasks"
		}
		vals := simStatus[coll]
		p.Fields = map[string][]string{"status": {vals[m.r.IntN(len(vals))], vals[m.r.IntN(len(vals))]}}
	}
	if m.r.IntN(4) == 0 && (p.Collection == "tasks" || p.Collection == "task") {
		if p.Fields == nil {
			p.Fields = map[string][]string{}
		}
		p.Fields["priority"] = []string{[]string{"low", "medium", "high", "critical"}[m.r.IntN(4)]}
	}
	if m.r.IntN(5) == 0 {
		p.Tag = simTags[m.r.IntN(4)]
	}
	if m.r.IntN(6) == 0 {
		if par := m.pick(true); par != nil {
			p.Parent = par.id
		}
	} else if m.r.IntN(6) == 0 {
		p.Unparented = true
	}
	p.IncludeArchived = m.r.IntN(4) == 0
	p.NonTerminal = m.r.IntN(4) == 0
	if m.r.IntN(3) == 0 {
		p.Sort = []string{"updated_at:desc", "updated_at", "title", "title:desc", "created_at:desc", "status,title", "priority:desc,updated_at"}[m.r.IntN(7)]
	}

	coll := p.Collection
	if coll == "task" {
		coll = "tasks"
	}
	var want []*simItem
	for _, id := range m.order {
		it := m.items[id]
		switch {
		case coll != "" && it.coll != coll,
			it.archived && !p.IncludeArchived,
			p.Tag != "" && !slices.Contains(it.tags, p.Tag),
			p.Parent != "" && it.parent != p.Parent,
			p.Unparented && it.parent != "",
			p.NonTerminal && slices.Contains(simTerminal[it.coll], it.status):
			continue
		}
		if vs, ok := p.Fields["status"]; ok && !slices.Contains(vs, it.status) {
			continue
		}
		if vs, ok := p.Fields["priority"]; ok && !slices.Contains(vs, it.prio) {
			continue
		}
		want = append(want, it)
	}
	sort.SliceStable(want, func(i, j int) bool { return simLess(p.Sort, want[i], want[j]) })
	var ids []string
	for i := p.Offset; i < len(want) && i < p.Offset+p.Limit; i++ {
		ids = append(ids, want[i].id)
	}
	return p, ids
}

// simLess is the model's list order: Pad's default (pinned, then
// updated_at desc), or the requested keys; always ending on the id.
func simLess(spec string, a, b *simItem) bool {
	if spec == "" {
		if a.pinned != b.pinned {
			return a.pinned
		}
		if !a.updated.Equal(b.updated) {
			return a.updated.After(b.updated)
		}
		return a.id < b.id
	}
	for _, seg := range strings.Split(spec, ",") {
		key, dir, _ := strings.Cut(seg, ":")
		var c int
		switch key {
		case "updated_at":
			c = a.updated.Compare(b.updated)
		case "created_at":
			c = a.created.Compare(b.created)
		case "title":
			c = strings.Compare(strings.ToLower(a.title), strings.ToLower(b.title))
		case "status":
			c = strings.Compare(a.status, b.status)
		case "priority":
			if (a.prio == "") != (b.prio == "") {
				return b.prio == "" // absent last, either direction
			}
			c = strings.Compare(a.prio, b.prio)
		}
		if dir == "desc" {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.id < b.id
}

func (m *sim) check(step int) {
	for range 3 {
		p, want := m.query()
		res, err := rd(m.s).ListItems(context.Background(), m.ws, p)
		if err != nil {
			m.t.Fatalf("step %d: list %+v: %v", step, p, err)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.ID)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			m.t.Fatalf("step %d: list %+v\n got  %v\n want %v", step, p, m.names(got), m.names(want))
		}
	}
	if it := m.pick(m.r.IntN(4) != 0); it != nil {
		got, err := rd(m.s).GetItem(m.ws, it.id)
		if err != nil {
			m.t.Fatalf("step %d: get %s: %v", step, it.id, err)
		}
		status, _ := got.Fields["status"].(string)
		prio, _ := got.Fields["priority"].(string)
		if got.Title != it.title || got.Collection.Slug != it.coll || status != it.status || prio != it.prio ||
			got.ParentID != it.parent || got.Pinned != it.pinned || (got.DeletedAt != nil) != it.archived ||
			!got.UpdatedAt.Equal(it.updated) || strings.Join(got.Tags, ",") != strings.Join(it.tags, ",") {
			m.t.Fatalf("step %d: item %s\n store %+v\n model %+v", step, it.id, got.Item, *it)
		}
	}
}

func (m *sim) names(ids []string) []string {
	var out []string
	for _, id := range ids {
		it := m.items[id]
		out = append(out, fmt.Sprintf("%d:%s/%s/pin=%v/%s", it.number, it.coll, it.status, it.pinned, it.updated.Format("15:04:05")))
	}
	return out
}

func TestRandomOpsAgainstModel(t *testing.T) {
	steps := 600
	if testing.Short() {
		steps = 300
	}
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			s, clk := openTestNoSync(t) // durability is not what this tests
			m := &sim{t: t, r: rand.New(rand.NewPCG(seed, 42)), s: s, clk: clk,
				ws: mustWorkspace(t, s, "Sim").Slug, items: map[string]*simItem{}}
			for step := range steps {
				switch k := m.r.IntN(100); {
				case k < 35:
					m.create()
				case k < 70:
					m.update()
				case k < 80:
					m.archive()
				case k < 88:
					m.move()
				default:
					m.refused()
				}
				m.check(step)
			}
			w, err := rd(s).GetWorkspace(m.ws)
			if err != nil {
				t.Fatal(err)
			}
			checkListIndex(t, s, w.ID)
		})
	}
}
