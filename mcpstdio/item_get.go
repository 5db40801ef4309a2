package mcpstdio

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
)

// pad_item get and its two projections: the body as numbered lines
// (Pad's lines, v0.87) and the compact agent view (Pad's agent, v0.37).

// itemGet answers the item with its body, comments and links; with
// lines, the body as numbered lines instead of content; with agent, the
// compact agent projection (agentView).
func itemGet(c *call) (*result, error) {
	got, err := getItemWith(c)
	if err != nil {
		return nil, err
	}
	lines := c.a.boolean("lines")
	if c.a.boolean("agent") {
		return agentView(got, lines), nil
	}
	item := fullItem(got.Item)
	out := map[string]any{"item": item}
	// A list this padd does not serve is left out, not shown empty.
	if got.comments != nil {
		out["comments"] = *got.comments
	}
	if got.links != nil {
		out["links"] = *got.links
	}
	r := &result{value: out}
	if lines {
		item.Content = nil
		nl := numberLines(got.Item.Content)
		out["item"] = struct {
			itemFull
			numberedBody
		}{item, nl}
		r.notes = nl.notes()
	}
	return r, nil
}

// itemWithParts is an item with its comments and links; a nil list is
// one the padd that answered does not serve.
type itemWithParts struct {
	api.Item
	comments *[]api.Comment
	links    *[]api.ItemLink
}

// getItemWith reads the item with its comments and links: one request
// to padd (?include=comments,links). A padd that ignores include gets
// the two lists asked for on their own routes, at once.
func getItemWith(c *call) (*itemWithParts, error) {
	var got api.ItemWith
	path, ref := c.itemPath(), c.a.str("ref")
	if _, err := c.p.do(c.ctx, "GET", path, url.Values{"include": {"comments,links"}}, nil, &got); err != nil {
		return nil, err
	}
	out := &itemWithParts{Item: got.Item, comments: got.Comments, links: got.Links}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	// fetch reads one list on its own route into *into, leaving it nil
	// when this padd has no such route.
	fetch := func(sub string, into any, served func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.p.do(c.ctx, "GET", path+"/"+sub, nil, nil, into)
			switch {
			case err != nil && noRoute(err):
			case err != nil:
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s of %s: %w", sub, ref, err))
				mu.Unlock()
			default:
				served()
			}
		}()
	}
	var comments []api.Comment
	var links []api.ItemLink
	if out.comments == nil {
		fetch("comments", &comments, func() { out.comments = &comments })
	}
	if out.links == nil {
		fetch("links", &links, func() { out.links = &links })
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if out.comments != nil && *out.comments == nil {
		*out.comments = []api.Comment{}
	}
	if out.links != nil && *out.links == nil {
		*out.links = []api.ItemLink{}
	}
	return out, nil
}

// Bounds of a get's projections: a body of many short lines would
// otherwise cost far more as numbered rows than as text, and an item's
// comments have no count limit.
const (
	maxBodyLines     = 10_000
	agentCommentsMax = 20
)

// bodyLine is one numbered line of a body.
type bodyLine struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// numberedBody is a body as numbered lines. Lines are numbered from 1
// and split at "\n" only, the way a patch counts them
// (patch_anchor_ambiguous's details.lines, a line_hint), so a text is the
// line's exact bytes (a "\r" stays). A final newline ends the last line
// rather than starting an empty one.
type numberedBody struct {
	Lines          []bodyLine `json:"lines"`
	LineCount      int        `json:"line_count"`
	LinesTruncated bool       `json:"lines_truncated,omitempty"`
}

func numberLines(body string) numberedBody {
	nb := numberedBody{Lines: []bodyLine{}}
	if body == "" {
		return nb
	}
	nb.LineCount = strings.Count(strings.TrimSuffix(body, "\n"), "\n") + 1
	n := min(nb.LineCount, maxBodyLines)
	nb.Lines = make([]bodyLine, 0, n)
	rest := body
	for i := 1; i <= n; i++ {
		line, after, _ := strings.Cut(rest, "\n")
		nb.Lines = append(nb.Lines, bodyLine{N: i, Text: line})
		rest = after
	}
	nb.LinesTruncated = n < nb.LineCount
	return nb
}

// notes say how to read the rest of a body cut short.
func (nb numberedBody) notes() []string {
	if !nb.LinesTruncated {
		return nil
	}
	return []string{fmt.Sprintf("The body has %d lines; these are the first %d. A patch anchors on exact text anywhere in the body: pad_item get without lines reads all of it.",
		nb.LineCount, maxBodyLines)}
}

// agentItem is the agent projection of get: what working the item
// needs (its fields with every digit, body, lease, the newest comments,
// its links as refs) without ids, workspace and collection ids, author
// bookkeeping or the collection's display members. Pad names the
// projection and publishes no shape for it; this one is padd's.
type agentItem struct {
	Ref             string           `json:"ref"`
	Title           string           `json:"title"`
	Collection      string           `json:"collection"`
	Fields          json.RawMessage  `json:"fields"`
	Tags            json.RawMessage  `json:"tags,omitempty"`
	Parent          string           `json:"parent,omitempty"`
	ParentTitle     string           `json:"parent_title,omitempty"`
	Role            string           `json:"role,omitempty"`
	Seq             int64            `json:"seq"`
	UpdatedAt       time.Time        `json:"updated_at"`
	DeletedAt       *time.Time       `json:"deleted_at,omitempty"`
	Lease           *api.Lease       `json:"lease,omitempty"`
	RelationTargets map[string]any   `json:"relation_targets,omitempty"`
	CodeContext     *api.CodeContext `json:"code_context,omitempty"`
	Content         *string          `json:"content,omitempty"`
	*numberedBody
	// Comments are the newest agentCommentsMax, oldest first.
	Comments      []agentComment `json:"comments,omitempty"`
	CommentsTotal *int           `json:"comments_total,omitempty"`
	Links         []agentLink    `json:"links,omitempty"`
}

// agentComment is a comment as the agent projection shows it: its id
// (to reply to or edit it), who, when, and the text.
type agentComment struct {
	ID      string    `json:"id"`
	Author  string    `json:"author"`
	By      string    `json:"by"` // user or agent
	At      time.Time `json:"at"`
	Body    string    `json:"body"`
	ReplyTo string    `json:"reply_to,omitempty"`
	Edited  bool      `json:"edited,omitempty"`
	Deleted bool      `json:"deleted,omitempty"`
}

// agentLink is a link seen from the item: out when the item is its
// source (the item blocks ref), in when it is the target.
type agentLink struct {
	Type      string `json:"type"`
	Direction string `json:"direction"`
	Ref       string `json:"ref"`
	Title     string `json:"title,omitempty"`
	Status    string `json:"status,omitempty"`
}

// agentView answers the agent projection; with lines, its body as
// numbered lines instead of content.
func agentView(got *itemWithParts, lines bool) *result {
	it := got.Item
	a := agentItem{Ref: it.Ref, Title: it.Title, Collection: it.CollectionSlug, Fields: rawJSON(it.Fields, "{}"),
		Parent: it.ParentRef, ParentTitle: it.ParentTitle, Role: it.AgentRoleSlug, Seq: it.Seq, UpdatedAt: it.UpdatedAt,
		DeletedAt: it.DeletedAt, Lease: it.Lease, RelationTargets: it.RelationTargets, CodeContext: it.CodeContext}
	if tags := rawJSON(it.Tags, "[]"); string(tags) != "[]" {
		a.Tags = tags
	}
	r := &result{value: &a}
	if lines {
		nb := numberLines(it.Content)
		a.numberedBody = &nb
		r.notes = nb.notes()
	} else {
		a.Content = &it.Content
	}
	if got.comments != nil {
		all := *got.comments
		n := len(all)
		a.CommentsTotal = &n
		a.Comments = make([]agentComment, 0, min(n, agentCommentsMax))
		for _, cm := range all[max(0, n-agentCommentsMax):] {
			a.Comments = append(a.Comments, agentComment{ID: cm.ID, Author: cm.Author, By: cm.CreatedBy, At: cm.CreatedAt,
				Body: cm.Body, ReplyTo: cm.ParentID, Edited: cm.Edited, Deleted: cm.Deleted})
		}
		if n > agentCommentsMax {
			r.notes = append(r.notes, fmt.Sprintf("These are the newest %d of %d comments: pad_item list-comments reads them all.", agentCommentsMax, n))
		}
	}
	if got.links != nil {
		a.Links = make([]agentLink, 0, len(*got.links))
		for _, l := range *got.links {
			out := agentLink{Type: l.LinkType, Direction: "out", Ref: l.TargetRef, Title: l.TargetTitle, Status: l.TargetStatus}
			if l.TargetID == it.ID {
				out = agentLink{Type: l.LinkType, Direction: "in", Ref: l.SourceRef, Title: l.SourceTitle, Status: l.SourceStatus}
			}
			a.Links = append(a.Links, out)
		}
	}
	return r
}
