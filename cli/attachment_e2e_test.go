//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// TestAttachmentCommands runs padctl in-process against a real padd:
// upload (attached and not), list, show, download, attach, delete.
func TestAttachmentCommands(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("workspace", "create", "Files", "--slug", "files")
	must("-w", "files", "item", "create", "tasks", "Crash on save")

	data := bytes.Repeat([]byte("log line\n"), 1000)
	src := filepath.Join(dir, "crash.log")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	up := decode[api.AttachmentUpload](t, must("-w", "files", "attachment", "upload", "TASK-1", src, "--format", "json"))
	if up.ItemRef != "TASK-1" || up.Size != int64(len(data)) || up.Filename != "crash.log" || !strings.HasPrefix(up.MIME, "text/plain") {
		t.Fatalf("upload: %+v", up)
	}
	r := must("-w", "files", "attachment", "upload", "-", src, "--filename", "second.log")
	if !strings.Contains(r.stdout, "Uploaded second.log") || !strings.Contains(r.stdout, "unattached") {
		t.Fatalf("unattached upload said %q", r.stdout)
	}
	list := decode[api.AttachmentList](t, must("-w", "files", "attachment", "list", "--unattached", "--format", "json"))
	if list.Total != 1 || list.Attachments[0].Filename != "second.log" {
		t.Fatalf("unattached list: %+v", list)
	}
	loose := list.Attachments[0].ID
	if r := must("-w", "files", "attachment", "list"); !strings.Contains(r.stdout, "crash.log") || !strings.Contains(r.stdout, "TASK-1") {
		t.Fatalf("list table: %q", r.stdout)
	}

	show := decode[api.AttachmentMeta](t, must("-w", "files", "attachment", "show", up.ID, "--format", "json"))
	if show.Size != int64(len(data)) || show.Filename != "crash.log" || show.ETag != `"`+up.ContentHash+`"` || show.LastModified == "" {
		t.Fatalf("show: %+v", show)
	}

	out := filepath.Join(dir, "copy.log")
	must("-w", "files", "attachment", "download", up.ID, out)
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes (%v), want %d", len(got), err, len(data))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*part*")); len(left) != 0 {
		t.Errorf("part files left: %v", left)
	}

	must("-w", "files", "attachment", "attach", loose, "TASK-1")
	r = run("-w", "files", "attachment", "attach", loose, "TASK-1")
	if r.code == 0 || !strings.Contains(r.stderr, "conflict") {
		t.Fatalf("second attach: %s", r)
	}
	must("-w", "files", "attachment", "delete", loose)
	r = run("-w", "files", "attachment", "show", loose)
	if r.code == 0 || !strings.Contains(r.stderr, "not_found") {
		t.Fatalf("show after delete: %s", r)
	}
}
