package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// SearchMaxLimit is padd's (and Pad's) cap on one page of search hits.
const SearchMaxLimit = 200

// SearchCmd is `search <query...>`, also `item search` (Pad's CLI has
// only that name).
type SearchCmd struct {
	Query           []string `arg:"" name:"query" help:"What to search for: words, \"phrases\", prefix*, -word, filters (the syntax is above). While the index is rebuilt, a search waits for it."`
	Collection      string   `predictor:"collection" help:"Only this collection (slug or alias: task, idea, ...)."`
	Status          string   `help:"Only these statuses (comma-separated: open,in-progress)."`
	Priority        string   `help:"Only these priorities (comma-separated)."`
	Sort            string   `enum:"relevance,created_at,updated_at,title" default:"relevance" help:"Order: relevance, created_at, updated_at (newest first) or title."`
	IncludeArchived bool     `help:"Include archived (deleted) items."`
	AllWorkspaces   bool     `help:"Search every workspace, not only the current one."`
	Limit           int      `default:"50" help:"At most this many results (up to 200)."`
	Offset          int      `help:"Skip this many results (the next page)."`
}

// Help is the query syntax, under the flags in `padctl search --help`.
// Every example in it runs (TestSearchExamplesRun extracts and runs them):
// a row's examples are the text before its description, two spaces or a
// comma apart.
func (c *SearchCmd) Help() string {
	return `Query syntax (Pad's, as its search box and pad_search take it):

  login redirect        every word must match, in the title, content, comments or tags;
                        when nothing matches exactly, a word of 4+ letters may have a typo
  "session cookie"      the words together, in this order
  redir*                words that start with redir
  -draft, NOT draft     leave out items with this word (or "phrase")
  status:open  priority:high  tag:bug  in:tasks  is:done  ref:TASK-5
                        filters (in: a collection; is: open, done, ...); any number
  title:login  title:"stale cookie"
                        the word (or phrase) in the title; a plain word already
                        searches the content
  支払い  新しいパスワード
                        Chinese, Japanese and Korean words match where their
                        characters stand together, in this order

A query of only punctuation or operators, or an unknown filter, is refused.
A query that starts with - goes after --:  padctl search -- -draft login`
}

// Run searches. A fuzzy answer (nothing matched exactly) is said on
// stderr, so scripts reading stdout see the same shape either way.
func (c *SearchCmd) Run(ctx context.Context, a *App) error {
	text := strings.TrimSpace(strings.Join(c.Query, " "))
	if text == "" {
		return usagef(codeEmptyQuery, "give the words to search for, e.g. padctl search login redirect", "the query is empty")
	}
	if c.Limit < 1 || c.Limit > SearchMaxLimit {
		return usagef(codeBadLimit, fmt.Sprintf("give --limit between 1 and %d, and page with --offset", SearchMaxLimit), "--limit %d is out of range", c.Limit)
	}
	if c.Offset < 0 {
		return usagef(codeBadOffset, "give --offset 0 or more", "--offset %d is negative", c.Offset)
	}
	q := api.SearchQuery{Query: text, Collection: c.Collection, Status: splitComma(c.Status), Priority: splitComma(c.Priority),
		Sort: c.Sort, IncludeArchived: c.IncludeArchived, Limit: c.Limit, Offset: c.Offset}
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	var wsNames map[string]string
	switch {
	case c.AllWorkspaces && a.format != FormatJSON:
		// Hits carry their workspace's id; people know it by its slug.
		wss, err := cl.ListWorkspaces(ctx)
		if err != nil {
			return err
		}
		wsNames = map[string]string{}
		for _, w := range wss {
			wsNames[w.ID] = w.Slug
		}
	case !c.AllWorkspaces:
		if q.Workspace, err = a.Workspace(ctx); err != nil {
			return err
		}
	}
	res, err := cl.Search(ctx, q)
	if err != nil {
		return err
	}
	if res.Results == nil {
		res.Results = []api.SearchResult{}
	}
	if res.Fuzzy {
		a.notef("%s", firstNonEmpty(res.Note, "nothing matched exactly; these results allow for a typo"))
	}
	if err := a.emitDoc(searchView{res: res, wsNames: wsNames}); err != nil {
		return err
	}
	if shown := res.Offset + len(res.Results); shown < res.Total && len(res.Results) > 0 {
		a.notef("%d results match and this page shows %d; add --offset %d for the next page (--limit goes up to %d)",
			res.Total, len(res.Results), shown, SearchMaxLimit)
	}
	return nil
}

// splitComma splits a comma-separated flag, dropping blanks.
func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// IndexCmd groups the search index commands.
type IndexCmd struct {
	Status  IndexStatusCmd  `cmd:"" help:"Show the search index: its state, rebuild progress, size, and how far it has caught up."`
	Rebuild IndexRebuildCmd `cmd:"" help:"Throw the search index away and build it again from the data (meanwhile a search waits for it, for as long as its client waits)."`
}

// IndexStatusCmd is `index status`.
type IndexStatusCmd struct{}

// Run shows the index status.
func (c *IndexStatusCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	st, err := cl.IndexStatus(ctx)
	if err != nil {
		return err
	}
	return a.emitIndex(ctx, cl, st, "")
}

// emitIndex prints an index status; workspace ids are named by slug for
// people (JSON keeps padd's ids).
func (a *App) emitIndex(ctx context.Context, cl *api.Client, st *api.IndexStatus, headline string) error {
	names := map[string]string{}
	if a.format != FormatJSON {
		if wss, err := cl.ListWorkspaces(ctx); err == nil {
			for _, w := range wss {
				names[w.ID] = w.Slug
			}
		}
	}
	return a.emitDoc(indexView{st: st, names: names, headline: headline})
}

// IndexRebuildCmd is `index rebuild [--wait]`.
type IndexRebuildCmd struct {
	Wait bool `help:"Wait until the index is ready again, showing progress on stderr."`
}

// How --wait polls. padd's status cannot tell a rebuild it has not
// started yet from one it has finished (both read "ready"), so a wait
// that never sees "rebuilding" ends after rebuildGrace: by then the
// indexer has long picked the request up, unless it is busy indexing a
// large backlog. Variables, so tests can shorten them.
var (
	rebuildPoll     = 50 * time.Millisecond
	rebuildMaxPoll  = 500 * time.Millisecond
	rebuildGrace    = 2 * time.Second
	rebuildProgress = time.Second // at most one progress line per this
)

// Run asks padd to rebuild and, with --wait, follows the rebuild.
func (c *IndexRebuildCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	st, err := cl.RebuildIndex(ctx)
	if err != nil {
		return err
	}
	if !c.Wait {
		return a.emitIndex(ctx, cl, st, "Rebuild requested; `padctl index status` follows it")
	}
	if st, err = a.waitIndex(ctx, cl, st); err != nil {
		return err
	}
	return a.emitIndex(ctx, cl, st, "Search index rebuilt")
}

// waitIndex polls the index status until the rebuild is over, printing
// progress lines on stderr (never to stdout, which holds the result).
func (a *App) waitIndex(ctx context.Context, cl *api.Client, st *api.IndexStatus) (*api.IndexStatus, error) {
	start := time.Now()
	seen := false // the rebuild has been seen running
	var lastLine time.Time
	lastDone := -1
	poll := rebuildPoll
	for {
		switch {
		case st.State == api.IndexRebuilding:
			seen = true
			if st.Done != lastDone && time.Since(lastLine) >= rebuildProgress {
				a.notef("rebuilding the search index: %s", progressText(st.Done, st.Total))
				lastLine, lastDone = time.Now(), st.Done
			}
		case !seen && time.Since(start) < rebuildGrace:
			// Not started yet (a failed index reads "failed" until the
			// rebuild it was asked for begins).
		case st.State == api.IndexFailed:
			return nil, failf(codeIndexFailed, "`padctl daemon logs` shows why; `padctl index rebuild` tries again",
				"the search index rebuild failed: %s", firstNonEmpty(st.Error, st.Reason, "no reason given"))
		default:
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
		if seen {
			// Running: progress moves slowly, so ask less often. Before
			// that, keep asking fast to catch a short rebuild at all.
			poll = min(poll*2, rebuildMaxPoll)
		}
		next, err := cl.IndexStatus(ctx)
		if err != nil {
			return nil, err
		}
		st = next
	}
}

// progressText is "120 of 500 items (24%)".
func progressText(done, total int) string {
	if total <= 0 {
		return plural(done, "item")
	}
	return fmt.Sprintf("%d of %s (%d%%)", done, plural(total, "item"), done*100/total)
}
