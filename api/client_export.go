package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// streamClient is the client's HTTP client without its overall timeout:
// an export or import runs as long as its bytes keep moving (padd bounds
// each read of an import's body); ctx ends it.
func (c *Client) streamClient() *http.Client {
	hc := *c.httpClient()
	hc.Timeout = 0
	return &hc
}

// sendRaw sends a request whose body or answer is not the JSON Do
// handles, through hc, and answers the answer's bytes (at most limit);
// a refusal is decoded as Do decodes it.
func (c *Client) sendRaw(req *http.Request, hc *http.Client, limit int64) ([]byte, error) {
	c.setHeaders(req.Header)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	defer resp.Body.Close()
	c.checkVersion(resp.Header.Get(VersionHeader))
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	if resp.StatusCode >= 400 {
		return nil, decodeError(resp.StatusCode, data)
	}
	return data, nil
}

// ExportWorkspace streams GET /workspaces/{ws}/export into w: the tar.gz
// bundle when bundle is set, else the JSON. It answers the bytes written.
// A bundle that ends without its "ok" trailer was cut short by padd and
// is an error (what was written is not a whole bundle).
func (c *Client) ExportWorkspace(ctx context.Context, ws string, bundle bool, w io.Writer) (int64, error) {
	u := c.BaseURL + "/api/v1" + wsPath(ws) + "/export"
	if bundle {
		u += "?format=tar"
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return 0, err
	}
	c.setHeaders(req.Header)
	resp, err := c.streamClient().Do(req)
	if err != nil {
		return 0, &TransportError{Err: err}
	}
	defer resp.Body.Close()
	c.checkVersion(resp.Header.Get(VersionHeader))
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return 0, decodeError(resp.StatusCode, data)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, &TransportError{Err: err}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, fmt.Errorf("the export ended after %d of %d bytes", n, resp.ContentLength)
	}
	if bundle && resp.Trailer.Get(BundleStatusTrailer) != BundleStatusOK {
		return n, fmt.Errorf("the bundle ended without padd's %s: %s trailer: padd stopped writing it part way", BundleStatusTrailer, BundleStatusOK)
	}
	return n, nil
}

// ImportWorkspace sends POST /workspaces/import with body (size bytes,
// or -1 when not known): a tar.gz bundle when bundle is set, else the
// JSON export. name, when set, names the new workspace.
func (c *Client) ImportWorkspace(ctx context.Context, body io.Reader, size int64, bundle bool, name string) (*ImportResult, error) {
	u := c.BaseURL + "/api/v1/workspaces/import"
	if name != "" {
		u += "?" + url.Values{"name": {name}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, "POST", u, body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = size
	ct := ExportContentType
	if bundle {
		ct = BundleContentType
	}
	req.Header.Set("Content-Type", ct)
	data, err := c.sendRaw(req, c.streamClient(), 16<<20)
	if err != nil {
		return nil, err
	}
	var out ImportResult
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode answer of POST /workspaces/import: %w", err)
	}
	return &out, nil
}

// ExportItemArtifact answers GET /workspaces/{ws}/items/{ref}/export:
// the item (a playbook or a convention) as artifact text.
func (c *Client) ExportItemArtifact(ctx context.Context, ws, ref string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.BaseURL+"/api/v1"+wsPath(ws)+"/items/"+PathEscape(ref)+"/export", nil)
	if err != nil {
		return nil, err
	}
	return c.sendRaw(req, c.httpClient(), 4*MaxArtifactBytes)
}

// ImportArtifact sends POST /workspaces/{ws}/import-artifact with the
// artifact text: a new item in the collection of the artifact's kind.
func (c *Client) ImportArtifact(ctx context.Context, ws string, artifact []byte) (*ArtifactImport, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", c.BaseURL+"/api/v1"+wsPath(ws)+"/import-artifact", bytes.NewReader(artifact))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", ArtifactContentType)
	data, err := c.sendRaw(req, c.httpClient(), 1<<20)
	if err != nil {
		return nil, err
	}
	var out ArtifactImport
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode answer of POST import-artifact: %w", err)
	}
	return &out, nil
}
