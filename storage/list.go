package storage

import (
	"context"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ListItems answers a list from the index: it reads the smallest
// matching stream in order and probes the others by key.
func (s *Store) ListItems(ctx context.Context, ws string, p ListParams) (*ListResult, error) {
	if p.Limit <= 0 {
		p.Limit = 1000
	}
	if p.Offset < 0 {
		p.Offset = 0
	}
	if p.Unparented && p.Parent != "" {
		return nil, model.Invalid("unparented cannot be combined with parent")
	}
	if len(p.Fields) > records.MaxFieldFilters {
		return nil, model.Invalid("invalid list filter: %d field filters, at most %d", len(p.Fields), records.MaxFieldFilters)
	}
	out := &ListResult{}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		b := r.WS
		colls := map[string]*model.Collection{}
		cs, err := records.CollectionsOf(b)
		if err != nil {
			return err
		}
		archivedColl := map[string]bool{}
		for _, c := range cs {
			colls[c.ID] = c
			if c.ArchivedAt != nil {
				archivedColl[c.ID] = true
			}
		}
		var coll *model.Collection
		if p.Collection != "" {
			if coll, err = records.LiveCollection(b, p.Collection); err != nil {
				return err
			}
		}
		lives := []byte{records.LifeLive}
		if p.IncludeArchived {
			lives = []byte{records.LifeLive, records.LifeArchived}
		}
		terms, undeclared, err := records.BuildTerms(b, p, coll, cs, lives)
		if err != nil {
			return err
		}
		out.UndeclaredFilterKeys = undeclared

		// The base stream: the collection or the workspace.
		var base records.Term
		for _, l := range lives {
			if coll != nil {
				base.Prefixes = append(base.Prefixes, records.CollPrefix(records.MustID(coll.ID), l))
			} else {
				base.Prefixes = append(base.Prefixes, []byte{records.KindAll, l})
			}
		}
		base.CollScoped = true
		for _, pr := range base.Prefixes {
			base.Count += records.CountOf(b, pr)
		}
		driver := &base
		for i := range terms {
			if !terms[i].AbsentOK && terms[i].Count < driver.Count {
				driver = &terms[i]
			}
		}
		var only map[string]bool
		if p.Only != nil {
			only = map[string]bool{}
			for _, id := range p.Only {
				only[id] = true
			}
		}
		terminal := map[string][][]byte{} // collection id -> terminal-value prefixes
		if p.NonTerminal {
			for _, c := range cs {
				key, terms := model.TerminalOptions(c.Schema, c.Settings)
				for _, t := range terms {
					for _, l := range lives {
						terminal[c.ID] = append(terminal[c.ID], records.Cat([]byte{records.KindField}, records.MustID(c.ID), records.Lstr(key), records.Lstr(t), []byte{l}))
					}
				}
			}
		}
		accept := func(suffix []byte, collID []byte) (bool, error) {
			cid := records.IDString(collID)
			if coll != nil && cid != coll.ID {
				return false, nil
			}
			if archivedColl[cid] && !p.IncludeArchived {
				return false, nil
			}
			for _, pr := range terminal[cid] {
				if b.Index().Get(records.Cat(pr, suffix)) != nil {
					return false, nil
				}
			}
			id := suffix[9:]
			if only != nil && !only[records.IDString(id)] {
				return false, nil
			}
			var loaded *model.Item
			for i := range terms {
				t := &terms[i]
				if t == driver {
					continue
				}
				hit := false
				for _, pr := range t.Prefixes {
					if b.Index().Get(records.Cat(pr, suffix)) != nil {
						hit = true
						break
					}
				}
				if !hit && t.AbsentOK {
					if loaded == nil {
						var err error
						if loaded, err = records.GetItem(b, id, false); err != nil || loaded == nil {
							return false, err
						}
					}
					hit = len(records.IndexValues(loaded.Fields[t.Key])) == 0
				}
				if !hit {
					return false, nil
				}
			}
			return true, nil
		}

		if p.Sort == "" {
			return records.PageInIndexOrder(r, driver, accept, p, colls, out)
		}
		if parts := records.ParseSort(p.Sort); len(parts) == 1 && parts[0].Key == "updated_at" && records.ByUpdatedFromIndex {
			return records.PageByUpdated(r, driver, accept, p, colls, out, parts[0].Desc)
		}
		return records.PageSorted(r, driver, accept, p, colls, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListParams is records.ListParams, the type storage's callers name.
type ListParams = records.ListParams

// ListResult is records.ListResult, the type storage's callers name.
type ListResult = records.ListResult
