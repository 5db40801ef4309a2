package mcpinstall

import "testing"

// FuzzConfigEdit: the installers edit MCP clients' own config files
// (JSON with comments, or TOML) in place. For any file that parses, an
// install either refuses or makes an edit that verifyEdit accepts (only
// padd's entry changed, and it reads back as written), and the uninstall
// of that edit removes exactly the entry again. A verifyEdit failure is
// Install refusing a readable file with "this is a bug in padctl".
func FuzzConfigEdit(f *testing.F) {
	for i, s := range []string{
		``, `{}`, `{"mcpServers":{}}`, `{"mcpServers":{"other":{"command":"x"}}}`,
		"{\n  // a comment\n  \"mcpServers\": {\n    \"padd\": {\"command\": \"old\", \"args\": []},\n  },\n}\n",
		`{"servers":{"padd":{"type":"stdio","command":"/bin/padctl","args":["mcp","serve"]}},"x":[1,2,{"y":null}]}`,
		`{"mcpServers":[]}`, `{"a":"\u00e9\ud83d\ude00","mcpServers":{"padd":1}}`, `[1]`, `{"mcpServers":{"padd":{}}} trailing`,
		"model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n", "[mcp_servers.padd]\ncommand = \"old\"\nargs = []\n\n[mcp_servers.padd.env]\nA = \"1\"\n",
		"mcp_servers.padd = { command = \"x\" }\n", "[mcp_servers]\npadd = { command = \"x\" }\n", "# only a comment", "a = 1\r\n[b]\r\nc = 2",
	} {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, client uint8, src []byte) {
		def := &clients[int(client)%len(clients)]
		if _, err := decodeAny(def, src); err != nil {
			return // Install refuses a file it cannot read, and says why
		}
		entry := def.Entry("/usr/local/bin/padctl", []string{"mcp", "serve"})
		next, err := setEntry(def, src, entry)
		if err != nil {
			return // a refusal (servers is not an object, an inline entry): fine
		}
		if err := verifyEdit(def, src, next, &entry); err != nil {
			t.Fatalf("%s: install on a readable file fails its own check: %v\nbefore: %q\nafter:  %q", def.Name, err, src, next)
		}
		out, found, err := removeEntry(def, next)
		if err != nil || !found {
			t.Fatalf("%s: uninstall after install: found %v, %v\nfile: %q", def.Name, found, err, next)
		}
		if err := verifyEdit(def, next, out, nil); err != nil {
			t.Fatalf("%s: uninstall fails its own check: %v\nbefore: %q\nafter:  %q", def.Name, err, next, out)
		}
	})
}
