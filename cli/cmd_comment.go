package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// ItemCommentCmd is `item comment <ref> <text>`.
type ItemCommentCmd struct {
	Ref     string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Text    string `arg:"" optional:"" help:"The comment (Markdown). With --stdin, read from stdin instead."`
	Stdin   bool   `help:"Read the comment from stdin."`
	ReplyTo string `placeholder:"COMMENT-ID" help:"Reply to this comment (ids are in \"padctl item comments\")."`
}

// Run adds the comment.
func (c *ItemCommentCmd) Run(ctx context.Context, a *App) error {
	body := c.Text
	if c.Stdin {
		if body != "" {
			return usagef(codeConflictingArgs, "give the text as an argument or with --stdin, not both", "comment text given twice")
		}
		b, err := io.ReadAll(a.env.Stdin)
		if err != nil {
			return fmt.Errorf("read comment from stdin: %w", err)
		}
		body = string(b)
	}
	if strings.TrimSpace(body) == "" {
		return usagef(codeEmptyComment, "give the comment text, e.g. padctl item comment TASK-5 \"looks good\"", "the comment is empty")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	cm, err := cl.AddComment(ctx, ws, c.Ref, api.CommentCreate{Body: body, ParentID: c.ReplyTo})
	if err != nil {
		return err
	}
	return a.emit(cm, func(w io.Writer) error {
		what := "Comment added to"
		if cm.ParentID != "" {
			what = "Reply added to"
		}
		_, err := fmt.Fprintf(w, "%s %s (comment %s)\n", what, a.style.paint(ansiBold, clean(c.Ref)), cm.ID)
		return err
	}, nil)
}

// ItemCommentsCmd is `item comments <ref>`.
type ItemCommentsCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run lists the item's comments, replies under their parent.
func (c *ItemCommentsCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListComments(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.Comment{}
	}
	v := commentsView{list: list, now: a.now()}
	return a.emit(list, func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// commentsView is an item's comments as a thread: each top-level comment
// followed by its replies, in the order padd gives them.
type commentsView struct {
	list []api.Comment
	now  time.Time
}

// threadEntry is a comment and how deep in its thread it sits.
type threadEntry struct {
	c     *api.Comment
	depth int
}

// threaded orders the comments parent-first; a reply whose parent is not
// in the list is shown at the top level rather than lost.
func (v commentsView) threaded() []threadEntry {
	ids := map[string]bool{}
	kids := map[string][]*api.Comment{}
	for i := range v.list {
		ids[v.list[i].ID] = true
	}
	var roots []*api.Comment
	for i := range v.list {
		c := &v.list[i]
		if c.ParentID != "" && ids[c.ParentID] {
			kids[c.ParentID] = append(kids[c.ParentID], c)
		} else {
			roots = append(roots, c)
		}
	}
	var out []threadEntry
	var walk func(c *api.Comment, depth int)
	walk = func(c *api.Comment, depth int) {
		out = append(out, threadEntry{c, depth})
		for _, k := range kids[c.ID] {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return out
}

func commentAuthor(c *api.Comment) string {
	return firstNonEmpty(c.Author, c.CreatedBy, "someone")
}

func commentBody(c *api.Comment) string {
	if c.Deleted {
		return "(deleted)"
	}
	return strings.TrimRight(c.Body, "\n")
}

func (v commentsView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No comments.")
		return err
	}
	for i, e := range v.threaded() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		indent := strings.Repeat("    ", e.depth)
		head := st.paint(ansiBold, clean(commentAuthor(e.c))) + " · " + ago(e.c.CreatedAt, v.now)
		if e.c.Edited {
			head += " (edited)"
		}
		fmt.Fprintf(w, "%s%s  %s\n", indent, head, st.paint(ansiDim, clean(e.c.ID)))
		for _, l := range strings.Split(sanitizeBlock(commentBody(e.c)), "\n") {
			fmt.Fprintf(w, "%s  %s\n", indent, l)
		}
		if r := reactionLine(e.c); r != "" {
			fmt.Fprintf(w, "%s  %s\n", indent, st.paint(ansiDim, clean(r)))
		}
	}
	return nil
}

func (v commentsView) writeMarkdown(w io.Writer) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "_No comments._")
		return err
	}
	for i, e := range v.threaded() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		quote := strings.Repeat("> ", e.depth)
		fmt.Fprintf(w, "%s**%s** · %s · `%s`\n%s\n", quote, mdCell(commentAuthor(e.c)), stamp(e.c.CreatedAt), e.c.ID,
			strings.TrimRight(quote, " "))
		for _, l := range strings.Split(sanitizeBlock(commentBody(e.c)), "\n") {
			fmt.Fprintln(w, strings.TrimRight(quote+l, " "))
		}
		if r := reactionLine(e.c); r != "" {
			fmt.Fprintf(w, "%s\n%s%s\n", strings.TrimRight(quote, " "), quote, mdCell(r))
		}
	}
	return nil
}

// reactionLine sums a comment's reactions by emoji, in the order each
// was first made: "👍 2 · 🎉 1"; "" for none.
func reactionLine(c *api.Comment) string {
	var order []string
	n := map[string]int{}
	for _, r := range c.Reactions {
		if n[r.Emoji] == 0 {
			order = append(order, r.Emoji)
		}
		n[r.Emoji]++
	}
	parts := make([]string, len(order))
	for i, e := range order {
		parts[i] = fmt.Sprintf("%s %d", e, n[e])
	}
	return strings.Join(parts, " · ")
}

// ItemReactCmd is `item react <comment-id> <emoji>`.
type ItemReactCmd struct {
	Comment string `arg:"" placeholder:"COMMENT-ID" help:"The comment (ids are in \"padctl item comments\")."`
	Emoji   string `arg:"" help:"The emoji, e.g. 👍 (any short text without control characters)."`
	Remove  bool   `help:"Take your reaction back instead."`
}

// Run adds (or removes) the reaction.
func (c *ItemReactCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if c.Remove {
		if err := cl.RemoveReaction(ctx, ws, c.Comment, c.Emoji); err != nil {
			return err
		}
		return a.emit(map[string]any{"comment_id": c.Comment, "emoji": c.Emoji, "removed": true}, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "Reaction %s taken back from comment %s\n", clean(c.Emoji), clean(c.Comment))
			return err
		}, nil)
	}
	r, err := cl.AddReaction(ctx, ws, c.Comment, c.Emoji)
	if err != nil {
		return err
	}
	return a.emit(r, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Reacted %s to comment %s\n", clean(r.Emoji), clean(r.CommentID))
		return err
	}, nil)
}
