package views

import (
	"context"
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The census read from the counts equals one counted from the items the
// test wrote: declared single-valued fields, an undeclared list field
// (each item once, each element a value), archived items left out.
func TestFieldUsageMatchesItems(t *testing.T) {
	const seed = 42
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Census").Slug
	prios := []string{"low", "medium", "high"}
	labels := []string{"x", "y", "z"}
	live := map[string]map[string]any{}
	for i := range 60 {
		f := map[string]any{"priority": prios[rng.IntN(len(prios))]}
		if rng.IntN(2) == 0 {
			var l []any
			for _, v := range labels {
				if rng.IntN(2) == 0 {
					l = append(l, v)
				}
			}
			f["labels"] = l
		}
		it := mustCreate(t, s, ws, "tasks", "T"+strconv.Itoa(i), f)
		if rng.IntN(5) == 0 {
			if _, err := s.DeleteItem(ws, it.Ref, user); err != nil {
				t.Fatal(err)
			}
			continue
		}
		live[it.Ref] = it.Fields
	}
	want := map[string]FieldUsage{}
	for _, f := range live {
		for k, v := range f {
			var vals []string
			switch x := v.(type) {
			case string:
				vals = []string{x}
			case []any:
				for _, e := range x {
					vals = append(vals, e.(string))
				}
			}
			if len(vals) == 0 {
				continue
			}
			u := want[k]
			if u.Values == nil {
				u = FieldUsage{Key: k, Values: map[string]int{}}
			}
			u.Items++
			for _, v := range vals {
				u.Values[v]++
			}
			want[k] = u
		}
	}
	got, more, err := Of(s).FieldUsage(context.Background(), ws, "tasks")
	if err != nil || more {
		t.Fatal(more, err)
	}
	if len(got) != len(want) {
		t.Fatalf("census %+v, want %+v", got, want)
	}
	for _, u := range got {
		if w := want[u.Key]; u.Items != w.Items || !maps.Equal(u.Values, w.Values) || u.Distinct != len(w.Values) {
			t.Errorf("%s = %d %v, want %d %v", u.Key, u.Items, u.Values, w.Items, w.Values)
		}
	}
	if _, _, err := Of(s).FieldUsage(context.Background(), ws, "nope"); err == nil {
		t.Error("unknown collection answered")
	}
}

// The census is bounded: a text field whose every item holds its own
// value names FieldUsageValues of them and counts them all; keys past
// FieldUsageKeys are left out and the answer says so.
func TestFieldUsageIsBounded(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Census").Slug
	n := FieldUsageKeys + 10
	for i := range n {
		mustCreate(t, s, ws, "tasks", "T"+strconv.Itoa(i), map[string]any{"n": "value " + strconv.Itoa(i), "k" + strconv.Itoa(i): "x"})
	}
	got, more, err := Of(s).FieldUsage(context.Background(), ws, "tasks")
	if err != nil {
		t.Fatal(err)
	}
	if !more || len(got) != FieldUsageKeys {
		t.Fatalf("%d keys, more %v: want %d and more", len(got), more, FieldUsageKeys)
	}
	for _, u := range got {
		if u.Key == "n" { // the index orders keys by length first: "n" is in
			if u.Items != n || u.Distinct != n || len(u.Values) != FieldUsageValues {
				t.Fatalf("n: %d items, %d distinct, %d values; want %d, %d, %d", u.Items, u.Distinct, len(u.Values), n, n, FieldUsageValues)
			}
			return
		}
	}
	t.Fatal("the census has no row for n")
}
