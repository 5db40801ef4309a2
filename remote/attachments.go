package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// Attachments on the remote (Pad's /workspaces/{ws}/attachments): the
// sync engine lists them, downloads their bytes, uploads padd's, binds an
// unattached one to an item and deletes them. Item text names an
// attachment as pad-attachment:<id>.

// AttachmentPage is how many rows one list request asks for (Pad's cap).
const AttachmentPage = 200

// ListAttachments reads one page of the workspace's attachments (the
// originals, not their thumbnails), oldest first; item, when given, is
// the remote id of the one item whose attachments to read.
func (c *Client) ListAttachments(ctx context.Context, ws, item string, offset int) (*api.AttachmentList, error) {
	q := url.Values{"sort": {"created_at"}, "limit": {strconv.Itoa(AttachmentPage)}, "offset": {strconv.Itoa(offset)}}
	if item != "" {
		q.Set("item_id", item)
	}
	var out api.AttachmentList
	if _, err := c.do(ctx, "GET", attachmentsPath(ws), q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// HasAttachments probes whether the remote keeps attachments: a server
// without the routes (404 not about the workspace) or with attachment
// storage turned off (503 attachments_disabled) does not.
func (c *Client) HasAttachments(ctx context.Context, ws string) (bool, error) {
	q := url.Values{"limit": {"1"}}
	var out api.AttachmentList
	_, err := c.do(ctx, "GET", attachmentsPath(ws), q, nil, &out)
	var e *Error
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &e) && e.Code == api.CodeAttachmentsDisabled:
		return false, nil
	case IsNotFound(err) && !IsWorkspaceGone(err):
		return false, nil
	}
	return false, err
}

// transferTimeout is how long moving size bytes may take: the usual
// timeout, and a second for each 256 KiB on top.
func (c *Client) transferTimeout(size int64) time.Duration {
	return c.timeout + time.Duration(size>>18)*time.Second
}

// OpenAttachment streams attachment id's bytes (size of them, as listed:
// the time allowed grows with it). The caller closes the reader, and
// checks the bytes' hash: Stage of package blobstore hashes them anyway.
func (c *Client) OpenAttachment(ctx context.Context, ws, id string, size int64) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, c.transferTimeout(size))
	resp, err := c.open(ctx, &request{method: "GET", path: attachmentsPath(ws) + "/" + url.PathEscape(id)})
	if err != nil {
		cancel()
		return nil, err
	}
	return &download{ReadCloser: resp.Body, cancel: cancel}, nil
}

type download struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (d *download) Close() error {
	err := d.ReadCloser.Close()
	d.cancel()
	return err
}

// UploadAttachment sends size bytes from body as a multipart upload (Pad's
// "file" part, and "item_id" for the remote item it goes on; "" leaves it
// unattached).
func (c *Client) UploadAttachment(ctx context.Context, ws, item, filename string, size int64, body io.Reader) (*api.AttachmentUpload, error) {
	var head, tail bytes.Buffer
	mw := multipart.NewWriter(&head)
	if item != "" {
		if err := mw.WriteField("item_id", item); err != nil {
			return nil, err
		}
	}
	if _, err := mw.CreateFormFile("file", uploadName(filename)); err != nil {
		return nil, err
	}
	contentType := mw.FormDataContentType()
	// The closing boundary goes after the bytes: written to a second
	// buffer by a writer sharing the first's boundary.
	end := multipart.NewWriter(&tail)
	if err := end.SetBoundary(mw.Boundary()); err != nil {
		return nil, err
	}
	if err := end.Close(); err != nil {
		return nil, err
	}
	var out api.AttachmentUpload
	r := &request{method: "POST", path: attachmentsPath(ws), out: &out, rawType: contentType, timeout: c.transferTimeout(size),
		raw:    io.MultiReader(&head, io.LimitReader(body, size), &tail),
		rawLen: int64(head.Len()) + size + int64(tail.Len())}
	if _, err := c.send(ctx, r); err != nil {
		return nil, err
	}
	return &out, nil
}

// uploadName is a filename safe in a multipart header: no control
// characters, quotes or backslashes (CreateFormFile escapes quotes but
// passes line breaks).
func uploadName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, name)
	if name == "" {
		return "attachment"
	}
	return name
}

// AttachAttachment binds an unattached attachment to an item (Pad's
// attachment_attach capability).
func (c *Client) AttachAttachment(ctx context.Context, ws, id, item string) error {
	_, err := c.do(ctx, "POST", attachmentsPath(ws)+"/"+url.PathEscape(id)+"/attach", nil, api.AttachRequest{Item: item}, nil)
	return err
}

// DeleteAttachment deletes an attachment; one the remote no longer has
// is not an error.
func (c *Client) DeleteAttachment(ctx context.Context, ws, id string) error {
	_, err := c.do(ctx, "DELETE", attachmentsPath(ws)+"/"+url.PathEscape(id), nil, nil, nil)
	if IsNotFound(err) && !IsWorkspaceGone(err) {
		return nil
	}
	return err
}

func attachmentsPath(ws string) string { return wsPath(ws) + "/attachments" }
