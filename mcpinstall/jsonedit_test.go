package mcpinstall

import (
	"strings"
	"testing"
)

var testEntry = stdioEntry{Command: "/bin/padctl", Args: []string{"mcp", "serve"}}

func TestSetServer(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty file", "", "{\n  \"mcpServers\": {\n    \"padd\": {\n      \"command\": \"/bin/padctl\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ]\n    }\n  }\n}\n"},
		{"empty object", "{}", "{\n  \"mcpServers\": {\n    \"padd\": {\n      \"command\": \"/bin/padctl\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ]\n    }\n  }\n}"},
		{"minified", `{"a":1,"mcpServers":{"x":{"command":"y"}}}`, `{"a":1,"mcpServers":{"x":{"command":"y"},"padd":{"command":"/bin/padctl","args":["mcp","serve"]}}}`},
		{"replace only the value", `{"mcpServers":{"padd":{"command":"old"},"z":1}}`, `{"mcpServers":{"padd":{"command":"/bin/padctl","args":["mcp","serve"]},"z":1}}`},
		{"no servers key yet", "{\n  \"theme\": \"dark\"\n}\n", "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"padd\": {\n      \"command\": \"/bin/padctl\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ]\n    }\n  }\n}\n"},
		{"comments and trailing comma", "{\n  // c1\n  \"mcpServers\": {\n    \"a\": {}, // c2\n  },\n}\n", "{\n  // c1\n  \"mcpServers\": {\n    \"a\": {}, // c2\n    \"padd\": {\n      \"command\": \"/bin/padctl\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ]\n    },\n  },\n}\n"},
		{"strings that look like structure", `{"k":"{\"mcpServers\": // not a comment","mcpServers":{}}`, `{"k":"{\"mcpServers\": // not a comment","mcpServers":{
  "padd": {
    "command": "/bin/padctl",
    "args": [
      "mcp",
      "serve"
    ]
  }
}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setServer([]byte(tc.in), "mcpServers", "padd", testEntry)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			def := &clientDef{Key: "mcpServers"}
			if err := verifyEdit(def, []byte(tc.in), got, &testEntry); err != nil {
				t.Error(err)
			}
			back, found, err := removeServer(got, "mcpServers", "padd")
			if err != nil || !found {
				t.Fatalf("remove: %v %v", found, err)
			}
			if err := verifyEdit(def, got, back, nil); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRemoveServerPositions(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"s":{"padd":1,"b":2,"c":3}}`, `{"s":{"b":2,"c":3}}`},
		{`{"s":{"a":1,"padd":2,"c":3}}`, `{"s":{"a":1,"c":3}}`},
		{`{"s":{"a":1,"b":2,"padd":3}}`, `{"s":{"a":1,"b":2}}`},
		{`{"s":{"padd":3}}`, `{"s":{}}`},
		{"{\"s\": {\n  \"a\": 1,\n  \"padd\": 3,\n}}", "{\"s\": {\n  \"a\": 1,\n}}"},
	}
	for _, tc := range cases {
		got, found, err := removeServer([]byte(tc.in), "s", "padd")
		if err != nil || !found || string(got) != tc.want {
			t.Errorf("%s: got %s %v %v, want %s", tc.in, got, found, err, tc.want)
		}
	}
	if _, found, _ := removeServer([]byte(`{"s":{"a":1}}`), "s", "padd"); found {
		t.Error("found an absent entry")
	}
}

func TestJSONEditRefuses(t *testing.T) {
	for _, in := range []string{`[1,2]`, `{"a":}`, `{"a":1} trailing`, `{"mcpServers":"x"}`, `{"a":"unterminated}`, `{/* open comment`} {
		if _, err := setServer([]byte(in), "mcpServers", "padd", testEntry); err == nil {
			t.Errorf("%s: accepted", in)
		} else if !strings.Contains(err.Error(), "line") && !strings.Contains(err.Error(), "not an object") {
			t.Errorf("%s: error %q does not say where", in, err)
		}
	}
}

func TestTOMLEdits(t *testing.T) {
	in := "a = 1\n\n[mcp_servers.padd]\ncommand = \"old\"\n\n[mcp_servers.padd.env]\nX = \"1\"\n\n# next\n[other]\nb = 2\n"
	got, err := tomlSetServer([]byte(in), "mcp_servers", "padd", testEntry)
	if err != nil {
		t.Fatal(err)
	}
	want := "a = 1\n\n[mcp_servers.padd]\ncommand = \"/bin/padctl\"\nargs = [\"mcp\", \"serve\"]\n\n# next\n[other]\nb = 2\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, found, err := tomlRemoveServer(got, "mcp_servers", "padd")
	if err != nil || !found || string(back) != "a = 1\n\n# next\n[other]\nb = 2\n" {
		t.Errorf("remove: %q %v %v", back, found, err)
	}
	// Quoted header keys and a Windows path survive a round trip.
	win := stdioEntry{Command: `C:\Program Files\padd\padctl.exe`, Args: []string{"mcp", "serve"}}
	got, err = tomlSetServer([]byte("[mcp_servers.\"padd\"]\ncommand = \"x\"\n"), "mcp_servers", "padd", win)
	if err != nil {
		t.Fatal(err)
	}
	def := &clientDef{Key: "mcp_servers", TOML: true}
	if err := verifyEdit(def, []byte("[mcp_servers.\"padd\"]\ncommand = \"x\"\n"), got, &win); err != nil {
		t.Errorf("%v\n%s", err, got)
	}
	if strings.Count(string(got), "[mcp_servers") != 1 {
		t.Errorf("the old table was not replaced:\n%s", got)
	}
	// A multi-line string whose lines look like headers is not a header.
	ml := "x = \"\"\"\n[mcp_servers.padd]\n\"\"\"\n"
	got, err = tomlSetServer([]byte(ml), "mcp_servers", "padd", testEntry)
	if err != nil || !strings.HasPrefix(string(got), ml) {
		t.Errorf("multi-line string: %q %v", got, err)
	}
}

func TestUnifiedDiff(t *testing.T) {
	d := unifiedDiff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\nX\nf\ng\n", "f.json")
	want := "--- f.json\n+++ f.json\n@@ -2,6 +2,6 @@\n b\n c\n d\n-e\n+X\n f\n g\n"
	if d != want {
		t.Errorf("got\n%s\nwant\n%s", d, want)
	}
	if unifiedDiff("same", "same", "x") != "" {
		t.Error("diff of equal texts")
	}
}
