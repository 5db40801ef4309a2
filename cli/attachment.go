package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/padd/padd/api"
)

// AttachmentCmd is `attachment`: files attached to items (ATT-01..03),
// with Pad's CLI's arguments.
type AttachmentCmd struct {
	Upload    AttachmentUploadCmd    `cmd:"" help:"Upload a file, attached to an item (or - for none)."`
	Download  AttachmentDownloadCmd  `cmd:"" help:"Download an attachment's bytes to a file (- for stdout)."`
	View      AttachmentViewCmd      `cmd:"" help:"Fetch an attachment to a file and print its path (for agents: $(padctl attachment view <id>))."`
	List      AttachmentListCmd      `cmd:"" aliases:"ls" help:"List the workspace's attachments."`
	Show      AttachmentShowCmd      `cmd:"" help:"Show an attachment's type, size, name, ETag and time, without its bytes."`
	Attach    AttachmentAttachCmd    `cmd:"" help:"Attach an unattached upload to an item."`
	Delete    AttachmentDeleteCmd    `cmd:"" aliases:"rm" help:"Delete an attachment."`
	Transform AttachmentTransformCmd `cmd:"" help:"Rotate or crop an image attachment into a new attachment on the same item."`
}

// AttachmentUploadCmd is `attachment upload <item-ref|-> <file|->`.
type AttachmentUploadCmd struct {
	Item     string `arg:"" help:"The item to attach it to (ref, slug or id), or - to leave it unattached."`
	File     string `arg:"" help:"The file to upload (- reads stdin; give --filename)."`
	Filename string `help:"The stored name (default: the file's base name)."`
}

// Run streams the file to padd.
func (c *AttachmentUploadCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	var r io.Reader
	size := int64(-1)
	name := c.Filename
	if c.File == "-" {
		r = a.env.Stdin
		if name == "" {
			name = "stdin"
		}
	} else {
		f, err := os.Open(c.File)
		if err != nil {
			return usagef(codeUploadFile, "", "cannot read %s: %v", c.File, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return usagef(codeUploadFile, "", "%s is not a regular file", c.File)
		}
		if st.Size() > api.MaxAttachmentBytes {
			return usagef(codeUploadFile, "padd takes attachments of up to "+humanBytes(api.MaxAttachmentBytes),
				"%s is %s, larger than padd's limit", c.File, humanBytes(st.Size()))
		}
		size, r = st.Size(), f
		if name == "" {
			name = filepath.Base(c.File)
		}
	}
	item := c.Item
	if item == "-" {
		item = ""
	}
	p := a.progress("Uploading "+name, size)
	up, err := cl.UploadAttachment(ctx, ws, io.TeeReader(r, p), size, name, item)
	p.done(err == nil)
	if err != nil {
		return err
	}
	return a.emit(up, func(w io.Writer) error {
		on := "unattached"
		if up.ItemRef != "" {
			on = "on " + up.ItemRef
		}
		_, err := fmt.Fprintf(w, "Uploaded %s (%s, %s) as %s, %s\n", clean(up.Filename), up.MIME, humanBytes(up.Size), up.ID, on)
		return err
	}, nil)
}

// AttachmentDownloadCmd is `attachment download <id> <file|->`.
type AttachmentDownloadCmd struct {
	ID      string `arg:"" help:"The attachment's id."`
	Out     string `arg:"" optional:"" help:"Where to write it (default: its stored name in this directory; - writes to stdout)."`
	Variant string `help:"thumb-sm or thumb-md: an image's thumbnail (256 or 1024 pixels on its longer edge); the original when it has none." placeholder:"VARIANT"`
	Force   bool   `help:"Replace the file when it exists (without it, an existing file is never overwritten)."`
}

// Run writes the bytes to a part file renamed once whole.
func (c *AttachmentDownloadCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if c.Out == "-" {
		_, _, err := cl.DownloadAttachmentVariant(ctx, ws, c.ID, c.Variant, a.out)
		return err
	}
	out := c.Out
	if out == "" {
		name, err := storedName(ctx, cl, ws, c.ID, c.Variant)
		if err != nil {
			return err
		}
		out = name
	}
	meta, n, err := a.downloadTo(ctx, cl, ws, c.ID, c.Variant, a.path(out), c.Force)
	if err != nil {
		return err
	}
	return a.emit(map[string]any{"id": c.ID, "file": out, "bytes": n, "mime": meta.MIME, "etag": meta.ETag},
		func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "Downloaded %s to %s (%s, %s)\n", clean(c.ID), clean(out), clean(meta.MIME), humanBytes(n))
			return err
		}, nil)
}

// attachmentTable lists attachments for `attachment list`.
func attachmentTable(atts []api.Attachment) *table {
	t := &table{cols: []column{{header: "ID"}, {header: "ITEM"}, {header: "NAME", flex: true, min: 12, middle: true}, {header: "TYPE"}, {header: "SIZE"}, {header: "UPLOADED"}}}
	for _, at := range atts {
		item := at.ItemRef
		if item == "" {
			item = "-"
		}
		t.add(plain(at.ID), plain(item), plain(at.Filename), plain(baseType(at.MimeType)), plain(humanBytes(at.SizeBytes)), plain(at.CreatedAt))
	}
	return t
}

// storedName is the file name to save an attachment as: its stored
// name made a safe local name (downloadName), or its id.
func storedName(ctx context.Context, cl *api.Client, ws, id, variant string) (string, error) {
	meta, err := cl.AttachmentHeadVariant(ctx, ws, id, variant)
	if err != nil {
		return "", err
	}
	return downloadName(meta.Filename, id), nil
}

// maxDownloadName bounds a name made from a remote one, in bytes.
const maxDownloadName = 200

// downloadName makes an attachment's stored name (which may come from a
// remote, and be anything) a name to create in a local folder: its last
// path element (either slash), without control characters or the
// characters Windows refuses (<>:"|?*), without leading dots (never a
// dot-file such as .bashrc or .ssh) or trailing dots and spaces, never
// a Windows device name, at most maxDownloadName bytes cut at a
// character; the fallback (made safe the same way) when nothing is left.
func downloadName(name, fallback string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError || strings.ContainsRune(`<>:"|?*`, r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = strings.TrimRight(strings.TrimLeft(name, ". \t"), ". \t")
	for len(name) > maxDownloadName {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" {
		if fallback == "" {
			return "attachment"
		}
		return downloadName(fallback, "")
	}
	stem, _, _ := strings.Cut(name, ".")
	switch strings.ToLower(strings.TrimRight(stem, " ")) {
	case "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
		"lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9":
		name = "_" + name
	}
	return name
}

// path is p made absolute, relative to the command's directory.
func (a *App) path(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.env.Dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// downloadTo writes an attachment's bytes to a part file beside out,
// put in place once whole: never over an existing file unless force.
func (a *App) downloadTo(ctx context.Context, cl *api.Client, ws, id, variant, out string, force bool) (*api.AttachmentMeta, int64, error) {
	exists := func() error {
		return failf(codeFileExists, "give another file name, or --force to replace it", "%s exists; it was not overwritten", clean(out))
	}
	if _, err := os.Lstat(out); err == nil && !force {
		return nil, 0, exists() // before the download: nothing fetched for nothing
	}
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".part-*")
	if err != nil {
		return nil, 0, failf(codeDownloadFile, "check that the folder exists and that you may write there", "cannot write %s: %v", clean(out), err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	p := a.progress("Downloading "+clean(filepath.Base(out)), -1)
	bw := bufio.NewWriterSize(io.MultiWriter(f, p), 256<<10)
	meta, n, err := cl.DownloadAttachmentVariant(ctx, ws, id, variant, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	p.done(err == nil)
	if err != nil {
		return nil, 0, err
	}
	if force {
		err = os.Rename(f.Name(), out)
	} else {
		err = placeNew(f.Name(), out)
		if errors.Is(err, fs.ErrExist) {
			return nil, 0, exists() // made meanwhile
		}
	}
	if err != nil {
		return nil, 0, failf(codeDownloadFile, "check that the folder exists and that you may write there", "cannot write %s: %v", clean(out), err)
	}
	return meta, n, nil
}

// placeNew puts the file tmp at out only when nothing is there: a hard
// link, which fails on an existing name whoever made it, then tmp goes.
// Where links are not supported, a check then a rename.
func placeNew(tmp, out string) error {
	err := os.Link(tmp, out)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(out); serr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, out)
}

// AttachmentViewCmd is `attachment view <id>`: Pad's way for an agent to
// look at an attachment named in an item's text.
type AttachmentViewCmd struct {
	ID      string `arg:"" help:"The attachment's id (the <id> of pad-attachment:<id> in an item's text)."`
	Output  string `short:"o" help:"Save it here instead of in a new temporary folder."`
	Variant string `help:"thumb-sm or thumb-md: an image's thumbnail; the original when it has none." placeholder:"VARIANT"`
	Force   bool   `help:"With -o: replace the file when it exists."`
}

// Run saves the bytes and prints the file's absolute path alone on
// stdout (what was written goes to stderr), so the command substitutes
// cleanly into a shell line.
func (c *AttachmentViewCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	out := c.Output
	if out == "" {
		name, err := storedName(ctx, cl, ws, c.ID, c.Variant)
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "padd-attachment-")
		if err != nil {
			return failf(codeDownloadFile, "check the temporary folder ($TMPDIR)", "cannot make a temporary folder: %v", err)
		}
		out = filepath.Join(dir, name)
	}
	meta, n, err := a.downloadTo(ctx, cl, ws, c.ID, c.Variant, a.path(out), c.Force)
	if err != nil {
		return err
	}
	out = a.path(out)
	return a.emit(map[string]any{"path": out, "mime": meta.MIME, "size": n}, func(w io.Writer) error {
		fmt.Fprintf(a.errw, "wrote %s (%s)\n", humanBytes(n), clean(meta.MIME))
		_, err := fmt.Fprintln(w, out)
		return err
	}, nil)
}

// AttachmentListCmd is `attachment list`.
type AttachmentListCmd struct {
	Item       string `help:"Only the attachments of this item (ref, slug or id)."`
	Category   string `help:"Only this kind: image, video, audio, document, text, archive, other."`
	Collection string `help:"Only attachments of items in this collection (slug or id)."`
	Attached   bool   `help:"Only attachments on an item."`
	Unattached bool   `help:"Only attachments on no item."`
	Sort       string `help:"created_at, created_at_desc (default), size, size_desc, filename, filename_desc."`
	Limit      int    `help:"Page size (1-200, default 50)."`
	Offset     int    `help:"Rows to skip."`
}

// Run lists one page.
func (c *AttachmentListCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range map[string]string{"item_id": c.Item, "category": c.Category, "collection": c.Collection, "sort": c.Sort} {
		if v != "" {
			q.Set(k, v)
		}
	}
	switch {
	case c.Attached && c.Unattached:
		return usagef(codeAttachedUnattached, "", "--attached and --unattached exclude each other; give at most one")
	case c.Attached:
		q.Set("item", "attached")
	case c.Unattached:
		q.Set("item", "unattached")
	}
	if c.Limit > 0 {
		q.Set("limit", strconv.Itoa(c.Limit))
	}
	if c.Offset > 0 {
		q.Set("offset", strconv.Itoa(c.Offset))
	}
	list, err := cl.ListAttachments(ctx, ws, q)
	if err != nil {
		return err
	}
	return a.emit(list, func(w io.Writer) error {
		if len(list.Attachments) == 0 {
			_, err := fmt.Fprintln(w, "No attachments.")
			return err
		}
		if err := attachmentTable(list.Attachments).write(w, a.style); err != nil {
			return err
		}
		if shown := list.Offset + len(list.Attachments); shown < list.Total {
			_, err := fmt.Fprintf(w, "%d of %d shown; --offset %d for more\n", len(list.Attachments), list.Total, shown)
			return err
		}
		return nil
	}, nil)
}

func baseType(t string) string {
	for i := 0; i < len(t); i++ {
		if t[i] == ';' {
			return t[:i]
		}
	}
	return t
}

// AttachmentShowCmd is `attachment show <id>`.
type AttachmentShowCmd struct {
	ID      string `arg:"" help:"The attachment's id."`
	Variant string `help:"thumb-sm or thumb-md: describe an image's thumbnail (the original when it has none)." placeholder:"VARIANT"`
}

// Run asks padd for the headers alone (HEAD).
func (c *AttachmentShowCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	m, err := cl.AttachmentHeadVariant(ctx, ws, c.ID, c.Variant)
	if err != nil {
		return err
	}
	return a.emit(m, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%-15s %s\n%-15s %s\n%-15s %s\n%-15s %s (%d bytes)\n%-15s %s\n%-15s %s\n",
			"ID:", clean(m.ID), "Filename:", clean(m.Filename), "MIME:", clean(m.MIME), "Size:", humanBytes(m.Size), m.Size, "ETag:", clean(m.ETag), "Last-Modified:", clean(m.LastModified))
		return err
	}, nil)
}

// AttachmentAttachCmd is `attachment attach <id> <item-ref>`.
type AttachmentAttachCmd struct {
	ID   string `arg:"" help:"The unattached upload's id."`
	Item string `arg:"" help:"The item to attach it to (ref, slug or id)."`
}

// Run binds it; padd refuses one already attached (attach is never a move).
func (c *AttachmentAttachCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	at, err := cl.AttachAttachment(ctx, ws, c.ID, c.Item)
	if err != nil {
		return err
	}
	return a.emit(at, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Attached %s to %s\n", clean(at.Filename), at.ItemRef)
		return err
	}, nil)
}

// AttachmentDeleteCmd is `attachment delete <id>`.
type AttachmentDeleteCmd struct {
	ID string `arg:"" help:"The attachment's id."`
}

// Run deletes the row; padd removes the bytes once no row names them.
func (c *AttachmentDeleteCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if err := cl.DeleteAttachment(ctx, ws, c.ID); err != nil {
		return err
	}
	return a.emit(map[string]any{"id": c.ID, "deleted": true}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Deleted attachment %s\n", c.ID)
		return err
	}, nil)
}

// AttachmentTransformCmd is `attachment transform <id> --rotate 90 |
// --crop x,y,w,h`.
type AttachmentTransformCmd struct {
	ID     string `arg:"" help:"The image attachment's id."`
	Rotate int    `help:"Turn clockwise by 90, 180 or 270 degrees (270 turns left; --rotate=-90 too)." placeholder:"DEGREES"`
	Crop   string `help:"Cut to the rectangle x,y,w,h in the image's pixels (origin top left)." placeholder:"X,Y,W,H"`
}

// Run asks padd for the transform; the original stays, the answer is the
// new attachment.
func (c *AttachmentTransformCmd) Run(ctx context.Context, a *App) error {
	var req api.TransformRequest
	switch {
	case (c.Rotate != 0) == (c.Crop != ""):
		return usagef(codeTransformUsage, "padctl attachment transform <id> --rotate 90  or  --crop 10,10,200,100",
			"give one of --rotate and --crop")
	case c.Rotate != 0:
		d := ((c.Rotate % 360) + 360) % 360
		if d == 0 || d%90 != 0 {
			return usagef(codeTransformUsage, "--rotate takes 90, 180 or 270 (or -90, -180, -270)", "cannot rotate by %d degrees", c.Rotate)
		}
		req = api.TransformRequest{Operation: api.TransformRotate, Degrees: d}
	default:
		var r api.TransformRect
		if n, err := fmt.Sscanf(c.Crop, "%d,%d,%d,%d", &r.X, &r.Y, &r.W, &r.H); err != nil || n != 4 || fmt.Sprintf("%d,%d,%d,%d", r.X, r.Y, r.W, r.H) != strings.ReplaceAll(c.Crop, " ", "") {
			return usagef(codeTransformUsage, "--crop x,y,w,h: four whole numbers, e.g. --crop 10,10,200,100", "cannot read %q as x,y,w,h", c.Crop)
		}
		req = api.TransformRequest{Operation: api.TransformCrop, Rect: &r}
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	up, err := cl.TransformAttachment(ctx, ws, c.ID, req)
	if err != nil {
		return err
	}
	return a.emit(up, func(w io.Writer) error {
		on := ""
		if up.ItemRef != "" {
			on = " on " + up.ItemRef
		}
		size := ""
		if up.Width != nil && up.Height != nil {
			size = fmt.Sprintf(", %dx%d", *up.Width, *up.Height)
		}
		_, err := fmt.Fprintf(w, "Created %s (%s%s, %s)%s\n  id: %s\n", clean(up.Filename), up.MIME, size, humanBytes(up.Size), on, up.ID)
		return err
	}, nil)
}
