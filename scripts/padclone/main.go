// Command padclone times `padctl sync clone` from a Pad server running on
// this machine (docs/SYNC.md, docs/PERFORMANCE.md).
//
//	go run ./scripts/padclone -pad-url http://127.0.0.1:7799 -pad-token-file tok
//
// It builds padd from this checkout and seeds a workspace in a padd of
// its own (bench.Workspace's items and blocking links, -comments comments
// on the items the generator gives comments, every fifth of them a reply),
// exports it and imports it into Pad (one request), then has a second
// padd clone it from Pad through a counting proxy. It prints the time
// from the clone's request until the sync status says synced, the
// requests by route with Pad's 429s, and what each side holds. The Pad
// server is one you started yourself (padd never builds or starts it);
// its token is a Pad API token of the workspace's owner, so the clone can
// read Pad's export.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bench"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/procstat"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func main() {
	padURL := flag.String("pad-url", "", "a Pad server on this machine (required)")
	tokFile := flag.String("pad-token-file", "", "file holding a Pad API token (required)")
	items := flag.Int("items", 2000, "items in the workspace")
	comments := flag.Int("comments", 0, "comments in the workspace (default twice the items)")
	seed := flag.Uint64("seed", 1, "seed of the generated workspace")
	flag.Parse()
	if *padURL == "" || *tokFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *comments == 0 {
		*comments = 2 * *items
	}
	tok, err := os.ReadFile(*tokFile)
	must(err)
	token := strings.TrimSpace(string(tok))
	fmt.Printf("seed %d, %d items, %d comments; %s, %d cores; load average %s\n", *seed, *items, *comments,
		runtime.Version(), runtime.NumCPU(), procstat.LoadAvg())
	ctx := context.Background()

	tmp, err := os.MkdirTemp("", "padd-padclone-")
	must(err)
	defer os.RemoveAll(tmp)
	build := exec.Command("go", "build", "-o", tmp+"/", "./cmd/padd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	must(build.Run())

	// The source: a padd seeded on disk, then exported into Pad.
	src := filepath.Join(tmp, "src")
	replies := seed0(src, *seed, *items, *comments)
	a, stopA := start(ctx, tmp, src)
	var export bytes.Buffer
	_, err = a.ExportWorkspace(ctx, "team", false, &export)
	must(err)
	stopA()
	pad := api.NewClient(strings.TrimRight(*padURL, "/"), token)
	began := time.Now()
	imp, err := pad.ImportWorkspace(ctx, bytes.NewReader(export.Bytes()), int64(export.Len()), false,
		fmt.Sprintf("padclone %s", time.Now().UTC().Format("150405")))
	must(err)
	fmt.Printf("imported into Pad as %q in %v (%d KB of JSON)\n", imp.Slug, time.Since(began).Round(time.Millisecond), export.Len()>>10)

	// The clone, through a proxy that counts Pad's answers by route.
	target, err := url.Parse(*padURL)
	must(err)
	cnt := &counter{n: map[string]int{}, limited: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.ModifyResponse = func(r *http.Response) error { cnt.add(r.Request, r.StatusCode); return nil }
	proxy := httptest.NewServer(rp)
	defer proxy.Close()

	b, stopB := start(ctx, tmp, filepath.Join(tmp, "clone"))
	defer stopB()
	began = time.Now()
	_, err = b.SyncClone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: imp.Slug, As: "team",
		SyncToken: api.SyncToken{Token: token}})
	must(err)
	for {
		st, err := b.SyncStatus(ctx, "team")
		must(err)
		if st.State == api.SyncSynced && !st.Cloning && st.Pending == 0 {
			break
		}
		if st.LastError != "" && st.State != api.SyncPulling && st.State != api.SyncPushing {
			fmt.Printf("  %s: %s\n", st.State, st.LastError)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took := time.Since(began)
	fmt.Printf("clone until synced: %.1f s, %d requests (%d answered 429)\n", took.Seconds(), cnt.total(), cnt.total429())
	cnt.print()

	// What each side holds.
	var got bytes.Buffer
	_, err = b.ExportWorkspace(ctx, "team", false, &got)
	must(err)
	var theirs bytes.Buffer
	_, err = pad.ExportWorkspace(ctx, imp.Slug, false, &theirs)
	must(err)
	fmt.Printf("Pad:   %s\n", summary(theirs.Bytes()))
	fmt.Printf("clone: %s (replies seeded: %d)\n", summary(got.Bytes()), replies)
	fmt.Printf("load average %s\n", procstat.LoadAvg())
}

// seed0 writes the workspace "team" into a new data directory and
// answers how many replies it holds.
func seed0(dir string, seed uint64, items, comments int) int {
	must(os.MkdirAll(dir, 0o700))
	st, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{NoSync: true})
	must(err)
	user := model.UserActor(model.SourceCLI)
	_, err = st.CreateWorkspace(storage.WorkspaceCreate{Name: "Team", Slug: "team"}, user)
	must(err)
	gen := bench.Workspace(seed, items)
	in := make([]storage.ItemCreate, len(gen))
	for i, it := range gen {
		in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
	}
	views, err := st.CreateItems("team", in, user, 5000)
	must(err)
	var withComments []int
	for i, it := range gen {
		if len(it.Comments) > 0 {
			withComments = append(withComments, i)
		}
		for _, j := range it.BlockedBy {
			_, err := st.AddLink("team", views[j].Ref, views[i].Ref, "blocks", user)
			must(err)
		}
	}
	rnd := rand.New(rand.NewPCG(seed, 7))
	last := map[int]string{}
	replies := 0
	for k := range comments {
		i := withComments[k%len(withComments)]
		in := storage.CommentCreate{Body: bench.Words(rnd, 8+rnd.IntN(20))}
		if k%5 == 4 && last[i] != "" {
			in.ReplyTo = last[i]
			replies++
		}
		res, err := st.AddComment("team", views[i].Ref, in, user)
		must(err)
		if in.ReplyTo == "" {
			last[i] = res.Comment.ID
		}
	}
	must(st.Close())
	return replies
}

// start starts a padd built into tmp on data directory home.
func start(ctx context.Context, tmp, home string) (*api.Client, func()) {
	c, info, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home, Start: true, Padd: filepath.Join(tmp, "padd")})
	must(err)
	return c, func() {
		if p, err := os.FindProcess(info.PID); err == nil {
			_ = p.Signal(os.Interrupt)
		}
		for launch.ProcessAlive(info.PID) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// summary counts an export's entities.
func summary(raw []byte) string {
	var e api.WorkspaceExport
	if err := json.Unmarshal(raw, &e); err != nil {
		return err.Error()
	}
	replies := 0
	for _, c := range e.Comments {
		if c.ParentID != "" {
			replies++
		}
	}
	s := fmt.Sprintf("%d items, %d comments, %d links", len(e.Items), len(e.Comments), len(e.ItemLinks))
	if replies > 0 {
		s += fmt.Sprintf(", %d replies", replies)
	}
	return s
}

// counter counts answers by route (ids and refs replaced by a name).
type counter struct {
	mu         sync.Mutex
	n, limited map[string]int
}

var idSeg = regexp.MustCompile(`/([0-9a-f]{8}-[0-9a-f-]{27}|[A-Z]+-\d+|padclone[^/]*)(/|$)`)

func (c *counter) add(r *http.Request, status int) {
	route := r.Method + " " + idSeg.ReplaceAllString(idSeg.ReplaceAllString(r.URL.Path, "/{id}$2"), "/{id}$2")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[route]++
	if status == http.StatusTooManyRequests {
		c.limited[route]++
	}
}

func (c *counter) total() int    { return sum(c.n) }
func (c *counter) total429() int { return sum(c.limited) }

func (c *counter) print() {
	c.mu.Lock()
	defer c.mu.Unlock()
	routes := make([]string, 0, len(c.n))
	for r := range c.n {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	for _, r := range routes {
		fmt.Printf("  %6d  %s", c.n[r], r)
		if c.limited[r] > 0 {
			fmt.Printf("  (%d 429)", c.limited[r])
		}
		fmt.Println()
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "padclone:", err)
		os.Exit(1)
	}
}
