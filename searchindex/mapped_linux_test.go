package searchindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/internal/mapped"
	"github.com/padd/padd/internal/mapped/mappedtest"
	"github.com/padd/padd/storage"
)

// builtFixture has n items indexed by the offline builder, so that the
// index is segment files padd maps, not segments in memory.
func builtFixture(t *testing.T, n int) *fixture {
	t.Helper()
	f := newFixture(t)
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "docs", Title: fmt.Sprintf("Doc %d about %s", i, topics[i%len(topics)]),
			Content: strings.Repeat(fmt.Sprintf("%s notes for doc%d, ", topics[(i/3)%len(topics)], i), 60)}
	}
	if _, err := f.store.CreateItems(f.ws.Slug, in, user, 0); err != nil {
		t.Fatal(err)
	}
	f.dropIndex()
	f.start()
	return f
}

var topics = []string{"login", "cache", "deploy", "migration", "billing", "search"}

func TestReleaseMappedGivesBackSegmentPagesAndSearchesTheSame(t *testing.T) {
	f := builtFixture(t, 3000)
	before := map[string][]string{}
	for _, q := range topics {
		before[q] = ids(f.search(q))
		if len(before[q]) == 0 {
			t.Fatalf("%q finds nothing before a release", q)
		}
	}
	_, mappedAll, err := mapped.Resident()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.idx.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	_, released, _ := mapped.Resident()
	if mappedAll-released < 1<<20 {
		t.Fatalf("ReleaseMapped gave back %d bytes of file-backed pages; want the searched segments', over 1 MiB", mappedAll-released)
	}
	for _, q := range topics {
		if got := ids(f.search(q)); !slices.Equal(got, before[q]) {
			t.Fatalf("%q after a release: %v; before: %v", q, got, before[q])
		}
	}
}

// Releases beside searches and the indexer's writes (segments made,
// merged and closed meanwhile): nothing fails, every write is found.
func TestReleaseMappedBesideSearchesAndWrites(t *testing.T) {
	f := builtFixture(t, 1000)
	stop := mappedtest.Repeat(f.idx.ReleaseMapped)
	for i := range 60 {
		v := f.create("tasks", fmt.Sprintf("Fresh task zq%dx", i), "written while the mappings are released", nil)
		wantHits(t, "fresh", f.search(fmt.Sprintf("zq%dx", i)), v.ID)
		if len(f.search(topics[i%len(topics)]).Hits) == 0 {
			t.Fatalf("%q finds nothing while releasing", topics[i%len(topics)])
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
