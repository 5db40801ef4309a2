package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/padd/padd/api"
)

// The workspace export a clone reads is walked as it arrives: item
// bodies and versions are read past, never held. Its caps hold padd's
// memory to a figure of its own whatever the remote sends (an endless
// answer, one endless value, endless comments); an export over one is a
// bad answer, and the clone reads item by item instead.
const (
	// MaxExportBytes caps the whole export: the time and traffic it takes.
	MaxExportBytes = 1 << 30
	// MaxExportValueBytes caps one value of the export as it arrives (an
	// item with its body, a comment, a string): what the decoder buffers
	// at once. The largest legal item, escaped, fits.
	MaxExportValueBytes = 16 << 20
	// MaxExportKeptBytes caps what the walk keeps (the items' ids, the
	// comments and the links), counted as the bytes they took in the
	// answer plus keptOverhead each.
	MaxExportKeptBytes = 64 << 20
	// keptOverhead is what one kept entry costs beyond its bytes (map
	// entry, struct, slice growth), counted so that many tiny entries
	// are bounded as well as a few large ones.
	keptOverhead = 128
)

// ExportCommentParents is the capability of an exporter whose comments
// name the comment they reply to (padd's). The Pad of August 2026
// exports comments without it, so a thread cannot be rebuilt from its
// export alone.
const ExportCommentParents = "export_comment_parents"

// Threads is what a clone takes from the remote's workspace export
// (GET /workspaces/{ws}/export, Pad's pad-export.json): which live items
// it holds, their comments and the links. Everything else in the export
// (bodies, versions) is read past.
type Threads struct {
	// Items are the ids of the items the export holds (Pad exports the
	// live ones only).
	Items map[string]bool
	// Comments are the export's comments, by item id, oldest first.
	Comments map[string][]api.Comment
	// Links are the export's links.
	Links []api.ItemLink
	// Parents says the export names each reply's parent
	// (ExportCommentParents); without it a reply reads as a comment.
	Parents bool
}

// ExportThreads reads the remote workspace's export for a clone. The
// server may refuse it (Pad exports only to a workspace owner): the
// caller then reads item by item.
func (c *Client) ExportThreads(caller context.Context, ws string) (*Threads, error) {
	ctx, cancel := context.WithTimeout(caller, c.timeout)
	defer cancel()
	r := &request{method: "GET", path: wsPath(ws) + "/export"}
	resp, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	th := &Threads{Items: map[string]bool{}, Comments: map[string][]api.Comment{}}
	if caps := c.Capabilities(); caps != nil {
		th.Parents = caps.Has(ExportCommentParents)
	}
	body := &cappedReader{r: resp.Body, left: MaxExportBytes}
	dec := json.NewDecoder(body)
	body.at = dec.InputOffset
	if err := readThreads(dec, th); err != nil {
		// A broken answer, one over a cap and a connection cut
		// mid-answer read alike; the caller reads item by item either way.
		// An answer its own time cut is a bad answer too (it was sent,
		// so not "not sent"): only the caller's end is a cancel.
		k := KindBadAnswer
		if caller.Err() != nil && !errors.Is(err, errTooLarge) {
			k = KindCanceled
		}
		return nil, r.errorf(k, resp.StatusCode, "reading the export: %w", err)
	}
	return th, nil
}

var errExportShape = errors.New("not a workspace export")

// readThreads walks pad-export.json key by key, each array element by
// element, so that at most one item's body is held at a time, and keeps
// at most MaxExportKeptBytes.
func readThreads(dec *json.Decoder, th *Threads) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	kept := int64(0)
	keep := func(n int64) error {
		if kept += n + keptOverhead; kept > MaxExportKeptBytes {
			return fmt.Errorf("%w: the ids, comments and links it holds are over %d bytes", errTooLarge, int64(MaxExportKeptBytes))
		}
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch key {
		case "items":
			err = eachElement(dec, func() error {
				var it struct {
					ID string `json:"id"`
				}
				if err := dec.Decode(&it); err != nil {
					return err
				}
				th.Items[it.ID] = true
				return keep(int64(len(it.ID)))
			})
		case "comments":
			err = eachElement(dec, func() error {
				var ce api.CommentExport
				from := dec.InputOffset()
				if err := dec.Decode(&ce); err != nil {
					return err
				}
				if err := keep(dec.InputOffset() - from); err != nil {
					return err
				}
				c := api.Comment{ID: ce.ID, ItemID: ce.ItemID, Author: ce.Author, Body: ce.Body, CreatedBy: ce.CreatedBy,
					Source: ce.Source, ParentID: ce.ParentID, CreatedAt: exportTime(ce.CreatedAt), UpdatedAt: exportTime(ce.UpdatedAt)}
				th.Comments[c.ItemID] = append(th.Comments[c.ItemID], c)
				return nil
			})
		case "item_links":
			err = eachElement(dec, func() error {
				var le api.ItemLinkExport
				from := dec.InputOffset()
				if err := dec.Decode(&le); err != nil {
					return err
				}
				if err := keep(dec.InputOffset() - from); err != nil {
					return err
				}
				th.Links = append(th.Links, api.ItemLink{ID: le.ID, SourceID: le.SourceID, TargetID: le.TargetID,
					LinkType: le.LinkType, CreatedBy: le.CreatedBy, CreatedAt: exportTime(le.CreatedAt)})
				return nil
			})
		default:
			err = skipValue(dec, 0)
		}
		if err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("%w: %v where %v was expected", errExportShape, tok, d)
	}
	return nil
}

// eachElement calls f for each element of the array dec is at (f
// decodes it); null is an empty array.
func eachElement(dec *json.Decoder, f func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("%w: %v where an array was expected", errExportShape, tok)
	}
	for dec.More() {
		if err := f(); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// maxSkipDepth bounds how deep skipValue walks nested objects.
const maxSkipDepth = 64

// skipValue reads past one value; an array is read element by element,
// so a long one (the versions) is never held whole.
func skipValue(dec *json.Decoder, depth int) error {
	if !dec.More() {
		return fmt.Errorf("%w: a key without a value", errExportShape)
	}
	if depth > maxSkipDepth {
		return fmt.Errorf("%w: nested deeper than %d objects", errExportShape, maxSkipDepth)
	}
	var first json.RawMessage
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if err := dec.Decode(&first); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('{'):
		for dec.More() {
			if _, err := dec.Token(); err != nil { // the key
				return err
			}
			if err := skipValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil // a scalar: Token read it
}

// exportTime reads an export's time; one it cannot read is the zero time
// (times in the export are not what a clone goes by).
func exportTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// cappedReader answers an error once more than left bytes were read, or
// once it would read more than MaxExportValueBytes past at (the
// decoder's offset: the start of the value it is buffering), so that no
// one value is buffered past the cap.
type cappedReader struct {
	r    io.Reader
	left int64
	at   func() int64
	read int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", errTooLarge, int64(MaxExportBytes))
	}
	ahead := int64(MaxExportValueBytes)
	if c.at != nil {
		ahead = c.at() + MaxExportValueBytes - c.read
	}
	if ahead <= 0 {
		return 0, fmt.Errorf("%w: a value in it is over %d bytes", errTooLarge, int64(MaxExportValueBytes))
	}
	if n := min(c.left, ahead); int64(len(p)) > n {
		p = p[:n]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

// Whole reports whether the export holds item id's comments whole, so a
// clone need not list them: the item is in the export, and its thread
// can be rebuilt from it (a single comment, or replies that name a
// parent the export holds).
func (th *Threads) Whole(id string) bool {
	if !th.Items[id] {
		return false
	}
	cs := th.Comments[id]
	if !th.Parents {
		return len(cs) <= 1
	}
	ids := make(map[string]bool, len(cs))
	for _, c := range cs {
		ids[c.ID] = true
	}
	for _, c := range cs {
		if c.ParentID != "" && !ids[c.ParentID] {
			return false
		}
	}
	return true
}

// Thread is item id's comments from the export, each after the comment
// it replies to (the order of a comment list).
func (th *Threads) Thread(id string) []api.Comment {
	cs := th.Comments[id]
	out := make([]api.Comment, 0, len(cs))
	placed := make(map[string]bool, len(cs))
	for len(out) < len(cs) {
		n := len(out)
		for _, c := range cs {
			if !placed[c.ID] && (c.ParentID == "" || placed[c.ParentID] || !th.Parents) {
				placed[c.ID] = true
				out = append(out, c)
			}
		}
		if len(out) == n { // a cycle of parents: the rest as they came
			for _, c := range cs {
				if !placed[c.ID] {
					placed[c.ID] = true
					out = append(out, c)
				}
			}
		}
	}
	return out
}
