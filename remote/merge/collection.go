package merge

import (
	"encoding/json"
	"slices"

	"github.com/padd/padd/model"
)

// Collection is what of a collection the merge compares: the parts a
// person edits on either side. Name, slug and prefix are not merged: they
// name the collection (Pad derives a new slug from a new name, and both
// sides address a collection by its slug).
type Collection struct {
	Icon        string
	Description string
	Schema      model.Schema
	Settings    model.Settings
}

// What a collection conflict is about; Conflict.Key says which part.
const (
	WhatIcon        = "icon"
	WhatDescription = "description"
	WhatSchema      = "schema"   // Key: "<field key>.<attribute>", e.g. "status.label"
	WhatSettings    = "settings" // Key: the setting, e.g. "default_view"
)

// CollectionResult is the merge of a collection: the merged one, the
// parts both sides changed differently (the remote's value is in Merged),
// and where Merged must go.
type CollectionResult struct {
	Merged     Collection
	Conflicts  []Conflict
	WriteLocal bool // Merged differs from the local side
	Push       bool // Merged differs from the remote
}

// MergeCollection merges a collection's local and remote sides against
// base, the version both last agreed on. Rules (docs/SYNC.md, "Merge
// rules"):
//   - A part only one side changed takes that side's value; the same
//     change on both sides is no conflict; a part both changed
//     differently takes the remote's value and is a Conflict. Parts are
//     the icon and the description, each setting, and each attribute of
//     each field (label, type, default, required, ...).
//   - A field's options and terminal options are sets: both sides'
//     additions survive, in the remote's order and then the local one's,
//     and a removal applies when the other side kept the option. An
//     option the merged field still uses (its default, a terminal
//     option) is never removed.
//   - Fields are a set by key, in the remote's order and then the local
//     one's: a field added on one side is kept; a field removed on one
//     side is removed unless the other side changed it since base, and
//     then it stays as that side has it.
//   - A side that changed nothing is taken whole (its order too).
//
// A nil base (no version in common: a workspace synced before padd kept
// one, or a collection of the same slug on both sides at link) takes
// nothing away: every field and option of either side is kept, and where
// the two differ the local value wins. The engine merges without a base
// only when padd has a change of its own to send; otherwise padd's side
// is the base.
func MergeCollection(base, local, remote *Collection) CollectionResult {
	if base == nil {
		base = unbased(local, remote)
	}
	var res CollectionResult
	switch {
	case sameCollection(local, base):
		res.Merged = clone(remote)
	case sameCollection(remote, base), sameCollection(local, remote):
		res.Merged = clone(local)
	default:
		cs := &res.Conflicts
		res.Merged = Collection{
			Icon:        pick(WhatIcon, base.Icon, local.Icon, remote.Icon, cs),
			Description: pick(WhatDescription, base.Description, local.Description, remote.Description, cs),
			Schema:      mergeSchema(&base.Schema, &local.Schema, &remote.Schema, cs),
			Settings:    mergeSettings(&base.Settings, &local.Settings, &remote.Settings, cs),
		}
	}
	res.WriteLocal = !sameCollection(&res.Merged, local)
	res.Push = !sameCollection(&res.Merged, remote)
	return res
}

// unbased is the base a merge without one uses: the remote's icon,
// description and settings, and the fields both sides have with the
// remote's attributes and only the options both have. Every difference
// then reads as a local change, and nothing as a removal.
func unbased(local, remote *Collection) *Collection {
	b := &Collection{Icon: remote.Icon, Description: remote.Description, Settings: remote.Settings}
	for _, rf := range remote.Schema.Fields {
		lf, ok := local.Schema.Field(rf.Key)
		if !ok {
			continue
		}
		f := rf
		f.Options = common(rf.Options, lf.Options)
		f.TerminalOptions = common(rf.TerminalOptions, lf.TerminalOptions)
		b.Schema.Fields = append(b.Schema.Fields, f)
	}
	return b
}

// common is the members of a that b has too, in a's order.
func common(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// mergeSchema merges the fields as a set by key (see MergeCollection).
func mergeSchema(base, local, remote *model.Schema, cs *[]Conflict) model.Schema {
	keys := listMerge(fieldKeys(base), fieldKeys(local), fieldKeys(remote))
	// A field removed on one side that the other changed stays.
	for _, f := range base.Fields {
		if slices.Contains(keys, f.Key) {
			continue
		}
		if l, ok := local.Field(f.Key); ok && !sameField(&f, &l) {
			keys = append(keys, f.Key)
		} else if r, ok := remote.Field(f.Key); ok && !sameField(&f, &r) {
			keys = append(keys, f.Key)
		}
	}
	out := model.Schema{Fields: make([]model.FieldDef, 0, len(keys))}
	for _, k := range keys {
		b, inBase := base.Field(k)
		l, inLocal := local.Field(k)
		r, inRemote := remote.Field(k)
		switch {
		case inLocal && inRemote:
			if !inBase {
				b = model.FieldDef{Key: k}
			}
			out.Fields = append(out.Fields, mergeField(&b, &l, &r, cs))
		case inLocal:
			out.Fields = append(out.Fields, cloneField(l))
		default:
			out.Fields = append(out.Fields, cloneField(r))
		}
	}
	return out
}

// mergeField merges one field both sides have: its options and terminal
// options as sets, every other attribute as a part.
func mergeField(base, local, remote *model.FieldDef, cs *[]Conflict) model.FieldDef {
	var fcs []Conflict
	attrs := mergeFields(attributes(base), attributes(local), attributes(remote), &fcs)
	for _, c := range fcs {
		c.What, c.Key = WhatSchema, local.Key+"."+c.Key
		*cs = append(*cs, c)
	}
	var f model.FieldDef
	if err := remarshal(attrs, &f); err != nil {
		// Attributes of FieldDefs decode as one: this is a bug, and the
		// remote's field is the safe answer.
		f = cloneField(*remote)
	}
	f.Key = remote.Key
	f.Options = listMerge(base.Options, local.Options, remote.Options)
	f.TerminalOptions = listMerge(base.TerminalOptions, local.TerminalOptions, remote.TerminalOptions)
	// An option the field still uses is kept (taken from either side's
	// list, so that it keeps a place).
	for _, o := range used(&f) {
		if !slices.Contains(f.Options, o) && (slices.Contains(local.Options, o) || slices.Contains(remote.Options, o) || slices.Contains(base.Options, o)) {
			f.Options = append(f.Options, o)
		}
	}
	return f
}

// used is the options a field refers to besides its list: its default
// (one value or a list) and its terminal options.
func used(f *model.FieldDef) []string {
	out := slices.Clone(f.TerminalOptions)
	switch d := f.Default.(type) {
	case string:
		out = append(out, d)
	case []any:
		for _, x := range d {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// attributes is a field as a map of its attributes but key, options and
// terminal options (an attribute at its zero value is absent).
func attributes(f *model.FieldDef) map[string]any {
	g := *f
	g.Key, g.Options, g.TerminalOptions = "", nil, nil
	var m map[string]any
	if err := remarshal(g, &m); err != nil {
		return nil
	}
	delete(m, "key")
	return m
}

// mergeSettings merges the settings setting by setting.
func mergeSettings(base, local, remote *model.Settings, cs *[]Conflict) model.Settings {
	var scs []Conflict
	var b, l, r map[string]any
	_ = remarshal(base, &b)
	_ = remarshal(local, &l)
	_ = remarshal(remote, &r)
	m := mergeFields(b, l, r, &scs)
	for _, c := range scs {
		c.What = WhatSettings
		*cs = append(*cs, c)
	}
	var out model.Settings
	if err := remarshal(m, &out); err != nil {
		return *remote
	}
	return out
}

// listMerge merges lists that are sets: a side that changed nothing is
// taken whole (its order too); else both sides' additions and removals
// apply, in the remote's order and then the local one's (mergeTags).
func listMerge(base, local, remote []string) []string {
	switch {
	case slices.Equal(local, base), slices.Equal(local, remote):
		return slices.Clone(remote)
	case slices.Equal(remote, base):
		return slices.Clone(local)
	}
	return mergeTags(base, local, remote)
}

func fieldKeys(s *model.Schema) []string {
	keys := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		keys[i] = f.Key
	}
	return keys
}

func sameField(a, b *model.FieldDef) bool { return sameJSON(a, b) }

// sameCollection compares two collections as they are sent (no fields
// and an empty list of fields are the same).
func sameCollection(a, b *Collection) bool {
	x, y := *a, *b
	if x.Schema.Fields == nil {
		x.Schema.Fields = []model.FieldDef{}
	}
	if y.Schema.Fields == nil {
		y.Schema.Fields = []model.FieldDef{}
	}
	return sameJSON(&x, &y)
}

// sameJSON compares two values by their JSON: a schema as it is stored
// and sent.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func clone(c *Collection) Collection {
	out := *c
	out.Schema.Fields = make([]model.FieldDef, len(c.Schema.Fields))
	for i, f := range c.Schema.Fields {
		out.Schema.Fields[i] = cloneField(f)
	}
	out.Settings.QuickActions = slices.Clone(c.Settings.QuickActions)
	return out
}

func cloneField(f model.FieldDef) model.FieldDef {
	f.Options, f.TerminalOptions = slices.Clone(f.Options), slices.Clone(f.TerminalOptions)
	return f
}

// remarshal converts v to into through JSON, numbers kept exact.
func remarshal(v, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if m, ok := into.(*map[string]any); ok {
		x, err := model.DecodeJSON(b)
		if err != nil {
			return err
		}
		*m, _ = x.(map[string]any)
		return nil
	}
	return json.Unmarshal(b, into)
}
