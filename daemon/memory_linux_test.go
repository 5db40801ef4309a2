package daemon

import (
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// A piece of a real padd's smaps, with the mappings a user would ask
// about: the heap and anonymous arenas (padd's own), the database, two
// index segments (one merged away but still mapped), the binary and the
// vDSO.
const smapsSample = `00400000-01c5c000 r-xp 00000000 fd:01 1234                               /usr/local/bin/padd
Size:              24944 kB
Rss:               11052 kB
Pss:               11052 kB
VmFlags: rd ex mr mw me dw sd
c000000000-c004000000 rw-p 00000000 00:00 0 
Size:              65536 kB
Rss:                7300 kB
Anonymous:          7300 kB
7f01c0000000-7f01d8000000 r--s 00000000 fd:01 5678                       /home/u/my data/padd.db
Size:             393216 kB
Rss:              381120 kB
7f01d8000000-7f01da000000 r--s 00000000 fd:01 5679                       /home/u/my data/search.bleve/store/000000000002.zap
Rss:               46012 kB
7f01da000000-7f01da100000 r--s 00000000 fd:01 5680                       /home/u/my data/search.bleve/store/0000000000e8.zap (deleted)
Rss:                 180 kB
7ffd5e1e0000-7ffd5e201000 rw-p 00000000 00:00 0                          [stack]
Rss:                 132 kB
7ffd5e3d1000-7ffd5e3d3000 r-xp 00000000 00:00 0                          [vdso]
Rss:                   8 kB
`

func TestSmapsSplitsOwnMemoryFromMappedFiles(t *testing.T) {
	k := memoryKinds{db: "/home/u/my data/padd.db", index: "/home/u/my data/search.bleve"}
	m, err := parseSmaps(strings.NewReader(smapsSample), k)
	if err != nil {
		t.Fatal(err)
	}
	want := api.MemoryUse{OwnBytes: (7300 + 132 + 8) << 10, DatabaseBytes: 381120 << 10,
		IndexBytes: (46012 + 180) << 10, ProgramBytes: 11052 << 10}
	if *m != want {
		t.Errorf("memory = %+v, want %+v", *m, want)
	}
	if _, err := parseSmaps(strings.NewReader("c000000000-c004000000 rw-p 00000000 00:00 0\nRss: lots kB\n"), k); err == nil {
		t.Error("an Rss that is not a number was read as one")
	}
}

// padd's status says how much of its memory is its own and how much is
// the database and index mapped from the page cache, read from this
// process's smaps (the test runs padd's server in process, so its
// database is mapped here).
func TestStatusSplitsMemory(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", "/api/v1/workspaces/w/collections/tasks/items", map[string]any{"title": "indexed"}, 201, nil)
	var st api.DaemonStatus
	h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
	m := st.Memory
	if m == nil {
		t.Fatal("status has no memory on Linux, where /proc/self/smaps says it")
	}
	if m.OwnBytes <= 0 || m.DatabaseBytes <= 0 || m.ProgramBytes <= 0 {
		t.Errorf("memory = %+v: want padd's own memory, the database's mapped pages and the program's all above zero", *m)
	}
}
