package daemon

import (
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/artifact"
)

func TestItemArtifactsMoveBetweenWorkspaces(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Other", "slug": "other"}, 201, nil)
	pb := h.create("playbooks", map[string]any{"title": "Ship a release", "content": "1. tag\n2. build: <b>&</b>\n",
		"fields": map[string]any{"status": "active", "trigger": "on-release", "scope": "all", "invocation_slug": "ship",
			"arguments": []any{map[string]any{"name": "version", "required": true, "description": "the tag"}}}})
	cv := h.create("conventions", map[string]any{"title": "Small commits", "content": "One change per commit.",
		"fields": map[string]any{"status": "active", "trigger": "on-commit", "priority": "must", "role": "implementer"}})

	for _, src := range []api.Item{pb, cv} {
		r := h.call("GET", wsPath("/items/"+src.Ref+"/export"), nil)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") {
			t.Fatalf("export %s: %d %s", src.Ref, r.status, r.body)
		}
		art, err := artifact.Decode(r.body)
		if err != nil {
			t.Fatalf("export of %s does not decode: %v\n%s", src.Ref, err, r.body)
		}
		if art.Provenance.Workspace != "w" || art.Provenance.Author == "" || art.Provenance.ExportedAt == "" {
			t.Errorf("provenance %+v", art.Provenance)
		}
		var res api.ArtifactImport
		h.mustJSON("POST", "/api/v1/workspaces/other/import-artifact", string(r.body), 201, &res, "Content-Type", "text/markdown")
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `status "active" reset`) {
			t.Errorf("warnings %q", res.Warnings)
		}
		var got api.Item
		h.mustJSON("GET", "/api/v1/workspaces/other/items/"+res.Ref, nil, 200, &got)
		back := h.call("GET", "/api/v1/workspaces/other/items/"+res.Ref+"/export", nil)
		again, err := artifact.Decode(back.body)
		if err != nil {
			t.Fatal(err)
		}
		// Equal but for what an import changes on purpose: the status
		// starts at draft, the body ends with where it came from.
		if again.Kind != art.Kind || again.Title != art.Title ||
			again.Body != strings.TrimRight(art.Body+artifact.Footer(art.Provenance), "\n")+"\n" {
			t.Errorf("moved artifact differs:\n%s\n---- from ----\n%s", back.body, r.body)
		}
		delete(again.Fields, "status")
		delete(art.Fields, "status")
		if a, b := jsonText(again.Fields), jsonText(art.Fields); a != b {
			t.Errorf("fields %s, want %s", a, b)
		}
	}

	// The same playbook again: its invocation slug is taken.
	r := h.call("GET", wsPath("/items/"+pb.Ref+"/export"), nil)
	var res api.ArtifactImport
	h.mustJSON("POST", "/api/v1/workspaces/other/import-artifact", string(r.body), 201, &res, "Content-Type", "text/markdown")
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[1], `imported as "ship-2"`) {
		t.Errorf("second import warnings %q", res.Warnings)
	}

	// padd's JSON form of the body, as the MCP door sends it.
	h.mustJSON("POST", "/api/v1/workspaces/other/import-artifact", map[string]any{"artifact": string(r.body)}, 201, &res)
	if !strings.Contains(strings.Join(res.Warnings, " "), `"ship-3"`) {
		t.Errorf("JSON import warnings %q", res.Warnings)
	}

	task := h.task("Not an artifact")
	h.wantError("GET", wsPath("/items/"+task.Ref+"/export"), nil, 400, api.CodeUnsupportedCollection)
	for _, c := range []struct{ body, code string }{
		{"no front matter", api.CodeMalformedArtifact},
		{"---\ntitle: x\n", api.CodeMalformedArtifact},
		{"---\npad_artifact: recipe\nformat_version: 1\ntitle: x\n---\nbody", api.CodeUnknownKind},
		{"---\npad_artifact: playbook\nformat_version: 9\ntitle: x\n---\nbody", api.CodeUnsupportedVersion},
		{"---\npad_artifact: playbook\nformat_version: 1\ntitle: &a x\nscope: *a\n---\nbody", api.CodeUnsafeYAML},
		{"---\npad_artifact: playbook\nformat_version: 1\ntitle: x\narguments: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n---\n", api.CodeUnsafeYAML},
		{"---\npad_artifact: playbook\nformat_version: 1\ntitle: ''\n---\nbody", "bad_request"},
		{"---\npad_artifact: playbook\nformat_version: 1\ntitle: x\n---\n" + strings.Repeat("x", api.MaxArtifactBytes), api.CodeTooLarge},
	} {
		status := 400
		if c.code == api.CodeTooLarge {
			status = 413
		}
		h.wantError("POST", "/api/v1/workspaces/other/import-artifact", c.body, status, c.code, "Content-Type", "text/markdown")
	}
}
