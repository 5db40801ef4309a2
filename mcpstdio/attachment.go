package mcpstdio

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/padd/padd/api"
)

// pad_attachment (ATT-01) reads attachment metadata; the bytes of an
// image reach an agent through the attachment resource (ATT-04).
// Uploading and downloading stay in padctl, as on Pad.

func init() {
	register(map[string]handler{
		"pad_attachment.list": attachmentList,
		"pad_attachment.show": attachmentShow,
	})
}

func attachmentList(c *call) (*result, error) {
	q := url.Values{}
	for _, k := range []string{"category", "collection", "sort"} {
		if v := c.a.str(k); v != "" {
			q.Set(k, v)
		}
	}
	if item := c.a.str("item"); item != "" {
		if c.a.boolean("unattached") {
			return nil, invalid("item filters to one item's attachments; unattached to those on none: drop one",
				"item and unattached are mutually exclusive")
		}
		q.Set("item_id", item)
	}
	switch {
	case c.a.boolean("attached"):
		q.Set("item", "attached")
	case c.a.boolean("unattached"):
		q.Set("item", "unattached")
	}
	for _, k := range []string{"limit", "offset"} {
		if n, ok := c.a.int(k); ok && n > 0 {
			q.Set(k, strconv.FormatInt(n, 10))
		}
	}
	return passThrough(c, "GET", wsPath(c.ws)+"/attachments", q, nil, nil)
}

// attachmentShow answers from a HEAD, as Pad does: MIME, size, filename,
// ETag and last-modified, without the bytes; of the thumbnail variant
// names (thumb-sm, thumb-md), or of the original when it has none.
func attachmentShow(c *call) (*result, error) {
	cl, err := c.p.client(c.ctx)
	if err != nil {
		return nil, err
	}
	m, err := cl.AttachmentHeadVariant(c.ctx, c.ws, c.a.str("attachment_id"), c.a.str("variant"))
	if err != nil {
		return nil, err
	}
	return &result{value: m}, nil
}

// client is the session's API client for the calls that are not JSON
// (a HEAD, a download).
func (p *paddConn) client(ctx context.Context) (*api.Client, error) {
	base, err := p.s.baseClient(ctx)
	if err != nil {
		return nil, err
	}
	return &api.Client{BaseURL: base.BaseURL, Token: base.Token, HTTP: base.HTTP,
		Agent: p.agent, Source: "mcp", Worker: p.s.worker, OnVersionMismatch: p.s.versionMismatch}, nil
}

// readAttachment is pad://workspace/{ws}/attachments/{id}: an image's
// thumb-md as base64, at most api.MaxAttachmentResourceBytes before
// encoding. A
// file that is not an image, or a larger one, is refused with what to
// do instead.
func readAttachment(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	cl, err := p.client(ctx)
	if err != nil {
		return nil, err
	}
	ws, id := vars["workspace"], vars["id"]
	// thumb-md, as Pad serves the resource: an image larger than the
	// cap can still be shown through its thumbnail (padd sends the
	// original when it has none).
	meta, body, err := cl.OpenAttachmentVariant(ctx, ws, id, api.VariantThumbMd)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	mt, _, _ := strings.Cut(meta.MIME, ";")
	mt = strings.TrimSpace(mt)
	if !strings.HasPrefix(mt, "image/") {
		return nil, invalid("only images are served as a resource; pad_attachment show describes any attachment, and `padctl attachment download` fetches it",
			"attachment %s is %s, not an image", id, mt).with("reason", "not_image")
	}
	if meta.Size > api.MaxAttachmentResourceBytes {
		return nil, tooLargeImage(id, meta.Size)
	}
	data, err := io.ReadAll(io.LimitReader(body, api.MaxAttachmentResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > api.MaxAttachmentResourceBytes {
		return nil, tooLargeImage(id, int64(len(data)))
	}
	return []mcpgo.ResourceContents{mcpgo.BlobResourceContents{URI: vars["uri"], MIMEType: mt, Blob: base64.StdEncoding.EncodeToString(data)}}, nil
}

func tooLargeImage(id string, size int64) *toolError {
	return refuse(api.CodeTooLarge, "`padctl attachment download` fetches it whole",
		"attachment %s is %s; the attachment resource serves images of at most 1 MiB", id, fmt.Sprintf("%d bytes", size)).
		with("reason", "attachment_resource").with("limit_bytes", api.MaxAttachmentResourceBytes)
}
