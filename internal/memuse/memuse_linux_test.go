package memuse

import (
	"strings"
	"testing"
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
	k := Files{DB: "/home/u/my data/padd.db", IndexDir: "/home/u/my data/search.bleve"}
	m, err := parseSmaps(strings.NewReader(smapsSample), k)
	if err != nil {
		t.Fatal(err)
	}
	want := Use{Own: (7300 + 132 + 8) << 10, Database: 381120 << 10,
		Index: (46012 + 180) << 10, Program: 11052 << 10}
	if *m != want {
		t.Errorf("memory = %+v, want %+v", *m, want)
	}
	if _, err := parseSmaps(strings.NewReader("c000000000-c004000000 rw-p 00000000 00:00 0\nRss: lots kB\n"), k); err == nil {
		t.Error("an Rss that is not a number was read as one")
	}
}
