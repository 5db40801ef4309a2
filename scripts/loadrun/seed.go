//go:build linux

package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/padd/padd/bench"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// seeded is the workspace written before padd starts.
type seeded struct {
	Slug       string
	ID         string
	Head       int64 // the workspace seq when seeding ended
	Items      int
	Links      int
	Comments   int
	TaskRefs   []string
	CounterRef string // the shared doc agents increment with expected_seq
	Took       time.Duration
}

// counterContent is the shared counter doc's body for a count.
func counterContent(n int) string {
	return fmt.Sprintf("Agents bump this count with expected_seq; a lost update would show here.\n\ncount: %d\n", n)
}

// seedWorkspace writes a realistic workspace of n items straight into a
// new database in home (bench.Workspace, the e2e benchmarks' generator):
// plans first, then tasks (a third under a plan), ideas and docs, every
// blocked-by dependency the generator made as a link, the comments of up
// to maxComments items, and the counter doc.
func seedWorkspace(home string, n int, seed uint64, maxComments int) (_ *seeded, err error) {
	start := time.Now()
	st, err := storage.Open(filepath.Join(home, "padd.db"), storage.Options{NoSync: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := st.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close the seeded database: %w", cerr)
		}
	}()
	user := model.UserActor(model.SourceCLI)
	ws, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Load", Slug: "load"}, user)
	if err != nil {
		return nil, err
	}
	out := &seeded{Slug: ws.Slug, ID: ws.ID}
	gen := bench.Workspace(seed, n)
	in := make([]storage.ItemCreate, len(gen))
	for i, it := range gen {
		in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
	}
	// Plans come first in the generated slice; create them, then the
	// rest with their parents.
	plans := 0
	for plans < len(gen) && gen[plans].Collection == "plans" {
		plans++
	}
	made, err := st.CreateItems(ws.Slug, in[:plans], user, 0)
	if err != nil {
		return nil, fmt.Errorf("seed plans: %w", err)
	}
	for i := plans; i < len(gen); i++ {
		if p := gen[i].Parent; p >= 0 && p < plans {
			in[i].Parent = made[p].ID
		}
	}
	rest, err := st.CreateItems(ws.Slug, in[plans:], user, 0)
	if err != nil {
		return nil, fmt.Errorf("seed items: %w", err)
	}
	made = append(made, rest...)
	out.Items = len(made)
	for i, v := range made {
		if gen[i].Collection == "tasks" {
			out.TaskRefs = append(out.TaskRefs, v.Ref)
		}
	}
	for i, it := range gen {
		for _, b := range it.BlockedBy {
			if _, err := st.AddLink(ws.Slug, made[i].ID, made[b].ID, "blocked-by", user); err != nil {
				return nil, fmt.Errorf("seed link: %w", err)
			}
			out.Links++
		}
	}
	withComments := 0
	for i, it := range gen {
		if len(it.Comments) == 0 {
			continue
		}
		if withComments++; withComments > maxComments {
			break
		}
		for _, body := range it.Comments {
			if _, err := st.AddComment(ws.Slug, made[i].ID, storage.CommentCreate{Body: body}, user); err != nil {
				return nil, fmt.Errorf("seed comment: %w", err)
			}
			out.Comments++
		}
	}
	counter, err := st.CreateItem(ws.Slug, storage.ItemCreate{Collection: "docs", Title: "Load run counter",
		Content: counterContent(0)}, user)
	if err != nil {
		return nil, fmt.Errorf("seed counter: %w", err)
	}
	out.CounterRef = counter.Item.Ref
	if out.Head, err = views.Of(st).Head(ws.ID); err != nil {
		return nil, err
	}
	out.Took = time.Since(start)
	return out, nil
}
