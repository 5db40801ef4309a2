package model

import (
	"fmt"
	"sort"
)

// MigrateFields carries an item's fields into another collection's
// schema (Pad's move rules): reserved metadata always rides along; a
// value carries when the destination declares the key with a compatible
// type (and, for a select, the option); computed fields never receive a
// value; everything else is dropped and named.
func MigrateFields(current map[string]any, src, dst Schema) (out map[string]any, dropped []string) {
	out = map[string]any{}
	for k, v := range current {
		if IsReservedField(k) {
			out[k] = v
			continue
		}
		td, ok := dst.Field(k)
		if !ok || td.Computed {
			dropped = append(dropped, k)
			continue
		}
		sd, _ := src.Field(k)
		if mv, ok := migrateValue(v, sd.Type, td); ok && ValidateValue(td, mv) == nil { // a carried value still fits its field
			out[k] = mv
		} else {
			dropped = append(dropped, k)
		}
	}
	sort.Strings(dropped)
	return out, dropped
}

func migrateValue(v any, srcType string, dst FieldDef) (any, bool) {
	if srcType == "" {
		srcType = TypeText
	}
	if srcType == dst.Type {
		if ValidateValue(dst, v) != nil {
			return nil, false
		}
		return v, true
	}
	s := fmt.Sprint(v)
	switch {
	case srcType == TypeText && dst.Type == TypeURL, srcType == TypeURL && dst.Type == TypeText:
		return v, true
	case dst.Type == TypeText && (srcType == TypeNumber || srcType == TypeSelect || srcType == TypeCheckbox || srcType == TypeDate):
		return s, true
	case srcType == TypeText && dst.Type == TypeNumber:
		// Only a JSON number: ParseFloat would pass "Inf", "+5", "0x1p4",
		// which fmtNumber then leaves a string inside a number field.
		if n := fmtNumber(s); IsNumber(n) {
			return n, true
		}
	case srcType == TypeSelect && dst.Type == TypeSelect, srcType == TypeText && dst.Type == TypeSelect:
		if dst.HasOption(s) || len(dst.Options) == 0 {
			return s, true
		}
	}
	return nil, false
}

func fmtNumber(s string) any {
	if v, err := DecodeJSON([]byte(s)); err == nil && IsNumber(v) {
		return v
	}
	return s
}

// StillDropped names, sorted and once each, the dropped keys a move or a
// copy's final fields do not hold after all.
func StillDropped(dropped []string, final map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range dropped {
		if _, ok := final[k]; ok || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CheckMoveOverrides refuses move overrides Pad refuses: a reserved key,
// or a field the destination does not declare (malformed_override).
func CheckMoveOverrides(dst *Collection, overrides map[string]any) error {
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if IsReservedField(k) {
			return Invalid("field %q is reserved system metadata and cannot be set by a move", k).With("field", k).With("reason", ReasonReserved)
		}
		if !dst.Schema.Declares(k) {
			return Errorf(CodeMalformedOverride, "override names field %q, which collection %q does not declare", k, dst.Slug).With("field", k)
		}
	}
	return nil
}

// CheckMoveState refuses a move that changes the item's state (open,
// done, abandoned) without naming the destination's done field
// (state_change_requires_value). before is the item's fields in its
// source collection, after what the destination would store. A
// destination without a done select is exempt.
func CheckMoveState(before, after map[string]any, src, dst *Collection, overrides map[string]any) error {
	if !HasDoneSelect(dst.Schema, dst.Settings) {
		return nil
	}
	dkey := DoneField(dst.Schema, dst.Settings)
	if _, named := overrides[dkey]; named {
		return nil
	}
	from, to := src.State(before), dst.State(after)
	if from == to {
		return nil
	}
	def, _ := dst.Schema.Field(dkey)
	return Errorf(CodeStateChangeRequiresValue,
		"moving to %q would change the item from %s to %s; name the destination's %q value (one of %v)", dst.Slug, from, to, dkey, def.Options).
		With("field", dkey).With("options", def.Options).With("from", string(from)).With("to", string(to))
}
