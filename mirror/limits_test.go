package mirror

import (
	"strings"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage/views"
)

// A file past the model's limits (a 2,000-character title, 3 MiB of
// content: the mirror reads files up to 8 MiB) is refused as REST
// refuses it: reported in the status, the file left as the user saved
// it, nothing of it stored (issue 44: a 4.7 MB file was accepted).
func TestFileOverTheLimitsIsReportedAndKept(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	ra := r.fileOf(a.Ref)
	before := r.item(a.Ref).Seq
	for _, tc := range []struct{ name, rel, text, says string }{
		{"3 MiB of content", ra, "---\nref: " + a.Ref + "\ntitle: Alpha\n---\n" + strings.Repeat("c", 3<<20), "content is 3145728 characters long"},
		{"a 2,000-character title", "tasks/long.md", "---\ntitle: " + strings.Repeat("t", 2_000) + "\n---\nbody\n", "title is 2000 characters long"},
	} {
		r.write(tc.rel, tc.text)
		testwait.Until(t, tc.name+" reported", func() bool {
			for _, e := range r.status().Errors {
				if e.Path == tc.rel && strings.Contains(e.Error, tc.says) {
					return true
				}
			}
			return false
		})
		if r.read(tc.rel) != tc.text {
			t.Errorf("%s: the file was rewritten", tc.name)
		}
	}
	if r.item(a.Ref).Seq != before {
		t.Errorf("a refused file changed %s", a.Ref)
	}
	if v, err := views.Of(r.store).GetItem(r.ws, "TASK-2"); err == nil {
		t.Errorf("a refused file made an item: %+v", v.Item)
	}
}
