package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
)

// ListAttachments answers GET /workspaces/{ws}/attachments with q's
// filters (item_id, item=attached|unattached, category, collection,
// sort, limit, offset).
func (c *Client) ListAttachments(ctx context.Context, ws string, q url.Values) (*AttachmentList, error) {
	var out AttachmentList
	if _, err := c.Do(ctx, "GET", wsPath(ws)+"/attachments", q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UploadAttachment streams body (size bytes, or -1 when not known) to
// POST /workspaces/{ws}/attachments as a raw body named filename,
// attached to item (a ref) when item is set.
func (c *Client) UploadAttachment(ctx context.Context, ws string, body io.Reader, size int64, filename, item string) (*AttachmentUpload, error) {
	q := url.Values{"filename": {filename}}
	if item != "" {
		q.Set("item_id", item)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.BaseURL+"/api/v1"+wsPath(ws)+"/attachments?"+q.Encode(), body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	data, err := c.sendRaw(req, c.streamClient(), 1<<20)
	if err != nil {
		return nil, err
	}
	var out AttachmentUpload
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode answer of POST attachments: %w", err)
	}
	return &out, nil
}

// DownloadAttachment streams GET /workspaces/{ws}/attachments/{id} into
// w and answers the attachment's headers and the bytes written.
func (c *Client) DownloadAttachment(ctx context.Context, ws, id string, w io.Writer) (*AttachmentMeta, int64, error) {
	return c.DownloadAttachmentVariant(ctx, ws, id, "", w)
}

// DownloadAttachmentVariant is DownloadAttachment of a variant ("" the
// original; a thumbnail, or the original when it has none).
func (c *Client) DownloadAttachmentVariant(ctx context.Context, ws, id, variant string, w io.Writer) (*AttachmentMeta, int64, error) {
	resp, err := c.attachmentRequest(ctx, "GET", ws, id, variant)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	meta := attachmentMeta(id, resp)
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return meta, n, &TransportError{Err: err}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return meta, n, fmt.Errorf("the download ended after %d of %d bytes", n, resp.ContentLength)
	}
	return meta, n, nil
}

// OpenAttachment is DownloadAttachment for a caller that reads the bytes
// itself (and closes them).
func (c *Client) OpenAttachment(ctx context.Context, ws, id string) (*AttachmentMeta, io.ReadCloser, error) {
	resp, err := c.attachmentRequest(ctx, "GET", ws, id, "")
	if err != nil {
		return nil, nil, err
	}
	return attachmentMeta(id, resp), resp.Body, nil
}

// OpenAttachmentVariant is OpenAttachment of a variant (VariantThumbSm,
// VariantThumbMd): padd answers with the original when the attachment has
// no such thumbnail (meta.Variant says which came).
func (c *Client) OpenAttachmentVariant(ctx context.Context, ws, id, variant string) (*AttachmentMeta, io.ReadCloser, error) {
	resp, err := c.attachmentRequest(ctx, "GET", ws, id, variant)
	if err != nil {
		return nil, nil, err
	}
	return attachmentMeta(id, resp), resp.Body, nil
}

// AttachmentHeadVariant is AttachmentHead of a variant ("" the
// original): the thumbnail's headers, or the original's when it has none.
func (c *Client) AttachmentHeadVariant(ctx context.Context, ws, id, variant string) (*AttachmentMeta, error) {
	resp, err := c.attachmentRequest(ctx, "HEAD", ws, id, variant)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return attachmentMeta(id, resp), nil
}

// AttachmentHead answers HEAD /workspaces/{ws}/attachments/{id}: the
// attachment's type, size, name, ETag and time, without its bytes.
func (c *Client) AttachmentHead(ctx context.Context, ws, id string) (*AttachmentMeta, error) {
	resp, err := c.attachmentRequest(ctx, "HEAD", ws, id, "")
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return attachmentMeta(id, resp), nil
}

func (c *Client) attachmentRequest(ctx context.Context, method, ws, id, variant string) (*http.Response, error) {
	u := c.BaseURL + AttachmentPath(ws, id)
	if variant != "" {
		u += "?variant=" + url.QueryEscape(variant)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req.Header)
	resp, err := c.streamClient().Do(req)
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	c.checkVersion(resp.Header.Get(VersionHeader))
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		if method == "HEAD" { // no body to read the code from
			e := decodeError(resp.StatusCode, nil).(*Error)
			if resp.StatusCode == http.StatusNotFound {
				e.Code, e.Message = CodeNotFound, "Attachment not found: "+id
			}
			return nil, e
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, decodeError(resp.StatusCode, data)
	}
	return resp, nil
}

// attachmentMeta reads an attachment's headers (Pad's show: MIME, size,
// filename, ETag, last-modified).
func attachmentMeta(id string, resp *http.Response) *AttachmentMeta {
	h := resp.Header
	m := &AttachmentMeta{ID: id, MIME: h.Get("Content-Type"), ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified"), Size: resp.ContentLength,
		Variant: h.Get("X-Pad-Attachment-Variant")}
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil {
		m.Size = n
	}
	if _, p, err := mime.ParseMediaType(h.Get("Content-Disposition")); err == nil {
		m.Filename = p["filename"]
	}
	return m
}

// AttachAttachment sends POST .../attachments/{id}/attach {item}.
func (c *Client) AttachAttachment(ctx context.Context, ws, id, item string) (*Attachment, error) {
	var out Attachment
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/attachments/"+PathEscape(id)+"/attach", nil, AttachRequest{Item: item}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TransformAttachment sends POST .../attachments/{id}/transform; the
// answer is the new attachment, shaped as an upload's.
func (c *Client) TransformAttachment(ctx context.Context, ws, id string, req TransformRequest) (*AttachmentUpload, error) {
	var out AttachmentUpload
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/attachments/"+PathEscape(id)+"/transform", nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAttachment sends DELETE .../attachments/{id}.
func (c *Client) DeleteAttachment(ctx context.Context, ws, id string) error {
	_, err := c.Do(ctx, "DELETE", wsPath(ws)+"/attachments/"+PathEscape(id), nil, nil, nil)
	return err
}
