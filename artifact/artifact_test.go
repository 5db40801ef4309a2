package artifact

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

func TestArtifactRoundTrip(t *testing.T) {
	a := Doc{Kind: Playbook, Title: "Ship: a release", Body: "1. tag\n---\n2. build\n",
		Fields: map[string]any{"status": "active", "invocation_slug": "ship", "ignored": "x",
			"arguments": []any{map[string]any{"name": "version", "required": true}}},
		Provenance: Provenance{Workspace: "w", ExportedAt: "2026-12-02T10:00:00Z", Author: "Local User"}}
	text, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	delete(a.Fields, "ignored")
	a.Provenance.FormatVersion = FormatVersion
	if b.Title != a.Title || b.Body != a.Body || b.Provenance != a.Provenance || len(b.Fields) != 3 ||
		b.Fields["invocation_slug"] != "ship" || b.Fields["arguments"].([]any)[0].(map[string]any)["required"] != true {
		t.Errorf("decoded %+v\nfrom\n%s", b, text)
	}
	crlf := strings.ReplaceAll(string(text), "\n", "\r\n")
	if c, err := Decode([]byte(crlf)); err != nil || c.Title != a.Title {
		t.Errorf("CRLF artifact: %v", err)
	}
}

// FuzzDecodeArtifact holds every input to an answer (an artifact or an
// Error) within a bound on allocation: YAML aliases are refused
// before anything expands them.
func FuzzDecodeArtifact(f *testing.F) {
	f.Add([]byte("---\npad_artifact: convention\nformat_version: 1\ntitle: x\npriority: must\n---\n\nbody\n"))
	f.Add([]byte("---\na: &a [x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c]\n---\n"))
	f.Add([]byte("---\ntitle: " + strings.Repeat("[", 100) + "\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > api.MaxArtifactBytes {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a, err := Decode(data)
		runtime.ReadMemStats(&after)
		var ae *Error
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("uncoded refusal %T: %v", err, err)
		}
		if err == nil && FieldKeys(a.Kind) == nil {
			t.Fatalf("accepted kind %q", a.Kind)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20+uint64(200*len(data)) {
			t.Fatalf("allocated %d bytes for %d bytes of input", got, len(data))
		}
	})
}
