package remote

import (
	"context"
	"strings"
	"testing"
)

// The export is read for ids, comments and links; what else it holds is
// read past, whatever its shape.
func TestExportThreads(t *testing.T) {
	body := `{"version":1,"workspace":{"name":"T","settings":"{\"a\":{\"b\":[1,{}]}}"},
	  "collections":[{"id":"c1","schema":"{}"}],
	  "items":[{"id":"i1","content":"long body","fields":"{}"},{"id":"i2"},{"id":"i3"}],
	  "comments":[{"id":"k1","item_id":"i1","body":"one","created_at":"2026-08-01T10:00:00Z"},
	              {"id":"k2","item_id":"i2","body":"q"},{"id":"k3","item_id":"i2","body":"a","parent_id":"k2"},
	              {"id":"k4","item_id":"i3","body":"x"},{"id":"k5","item_id":"i3","body":"y"}],
	  "item_links":[{"id":"l1","source_id":"i1","target_id":"i9","link_type":"blocks"}],
	  "item_versions":[{"id":"v1","content":"old"}], "later":{"nested":{"deeper":[[1],[2]]}}, "n":null}`
	th, err := answering(t, []byte(body)).ExportThreads(context.Background(), "w")
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Items) != 3 || len(th.Comments["i2"]) != 2 || len(th.Links) != 1 || th.Links[0].TargetID != "i9" {
		t.Fatalf("threads = %+v", th)
	}
	if th.Comments["i1"][0].CreatedAt.IsZero() {
		t.Errorf("a comment's time was not read: %+v", th.Comments["i1"][0])
	}
	// Without the exporter naming parents, an item of two comments must be listed.
	for id, want := range map[string]bool{"i1": true, "i2": false, "i3": false, "i9": false} {
		if got := th.Whole(id); got != want {
			t.Errorf("Whole(%s) without parents = %v, want %v", id, got, want)
		}
	}
	th.Parents = true
	for id, want := range map[string]bool{"i1": true, "i2": true, "i3": true} {
		if got := th.Whole(id); got != want {
			t.Errorf("Whole(%s) with parents = %v, want %v", id, got, want)
		}
	}
	if got := th.Thread("i2"); len(got) != 2 || got[0].ID != "k2" {
		t.Errorf("Thread(i2) = %+v, want the parent first", got)
	}
}

func TestExportThreadsRefusesWhatIsNoExport(t *testing.T) {
	for name, body := range map[string]string{
		"array":          `[]`,
		"items object":   `{"items":{"id":"x"}}`,
		"comment string": `{"comments":["x"]}`,
		"cut short":      `{"items":[{"id":"x"}`,
		"too deep":       `{"x":` + strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100) + `}`,
	} {
		_, err := answering(t, []byte(body)).ExportThreads(context.Background(), "w")
		if !IsBadAnswer(err) {
			t.Errorf("%s: err = %v, want a bad answer", name, err)
		}
	}
}

// FuzzExportThreads: any export answer is threads or a bad answer (never
// a panic, never another kind), read in time and memory bounded by its
// size.
func FuzzExportThreads(f *testing.F) {
	f.Add([]byte(`{"items":[{"id":"a"}],"comments":[{"id":"c","item_id":"a","parent_id":"c"}],"item_links":null}`))
	f.Add([]byte(`{"item_versions":[[[[{}]]]],"x":{"y":{"z":"w"}}}`))
	f.Add([]byte(`{"comments":[{"item_id":"a","created_at":"not a time"}]} trailing`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := answering(t, body)
		var th *Threads
		var err error
		bounded(t, len(body), func() { th, err = c.ExportThreads(context.Background(), "w") })
		if err != nil {
			if !IsBadAnswer(err) {
				t.Fatalf("a bad body = %v, want a bad answer", err)
			}
			return
		}
		for id := range th.Comments {
			th.Whole(id)
			th.Parents = !th.Parents
			_ = th.Thread(id)
		}
	})
}
