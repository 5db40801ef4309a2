package mcpstdio

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/padd/padd/cli"
)

// Every catalog action is either carried out (a handler) or declared
// pending (the notWired table), never both and never neither, and
// neither table names an action the catalog does not have.
func TestEveryActionWiredOrDeclared(t *testing.T) {
	keys := map[string]bool{}
	for _, tool := range catalog {
		if len(tool.Actions) == 0 {
			keys[tool.Name] = true
		}
		for i := range tool.Actions {
			keys[actionKey(tool, &tool.Actions[i])] = true
		}
	}
	for k := range keys {
		_, wired := handlers[k]
		_, pending := notWired[k]
		switch {
		case wired && pending:
			t.Errorf("%s has a handler and is in notWired: delete its notWired row", k)
		case !wired && !pending:
			t.Errorf("%s has no handler and is not in notWired", k)
		}
	}
	for k := range handlers {
		if !keys[k] {
			t.Errorf("handler %s names no catalog action", k)
		}
	}
	for k := range notWired {
		if !keys[k] {
			t.Errorf("notWired row %s names no catalog action", k)
		}
	}
}

// The catalog keeps every tool, action and param of the catalog a real
// Pad served at ToolSurfaceVersion 0.25, with the same JSON types and
// enums; padd may add, never drop or retype.
func TestCatalogCoversPad025(t *testing.T) {
	f, err := os.Open("testdata/pad-mcp-catalog-v0.25.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toolLine := regexp.MustCompile(`^== (pad_[a-z_]+)\s`)
	paramRe := regexp.MustCompile(`^([a-z_]+)\*?:([a-z]+)(?:<([a-z]+)>)?(?:\{([^}]*)\})?$`)
	var cur *toolDef
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := toolLine.FindStringSubmatch(line); m != nil {
			var ok bool
			if cur, ok = toolByName(m[1]); !ok {
				t.Errorf("Pad's tool %s is missing", m[1])
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, "actions:"):
			for _, a := range strings.Split(strings.TrimPrefix(line, "actions:"), ",") {
				name := strings.TrimSuffix(strings.TrimSpace(a), "(ro)")
				act, ok := cur.action(name)
				if !ok {
					t.Errorf("%s: Pad's action %s is missing", cur.Name, name)
					continue
				}
				if ro := strings.HasSuffix(strings.TrimSpace(a), "(ro)"); ro != act.ReadOnly {
					t.Errorf("%s %s: read-only %v, Pad says %v", cur.Name, name, act.ReadOnly, ro)
				}
				n++
			}
		case strings.HasPrefix(line, "params ("):
			_, list, _ := strings.Cut(line, ":")
			for _, p := range strings.Split(list, ";") {
				m := paramRe.FindStringSubmatch(strings.TrimSpace(p))
				if m == nil {
					t.Fatalf("cannot read param %q", p)
				}
				def, ok := cur.param(m[1])
				if !ok {
					t.Errorf("%s: Pad's param %s is missing", cur.Name, m[1])
					continue
				}
				if def.Type != m[2] || def.Items != m[3] {
					t.Errorf("%s.%s: type %s<%s>, Pad says %s<%s>", cur.Name, m[1], def.Type, def.Items, m[2], m[3])
				}
				if m[4] != "" && strings.Join(def.Enum, "|") != m[4] {
					t.Errorf("%s.%s: enum %v, Pad says %s", cur.Name, m[1], def.Enum, m[4])
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("read only %d actions and params from Pad's catalog: the file format changed", n)
	}
}

// The catalog has every action the inventory's table of Pad's catalog
// names (testdata/pad-inventory-actions.txt: the later Pad versions'
// actions too, not only 0.25's), each carried out unless notWired says
// why not (invite and claim, which belong to a Pad server).
func TestCatalogCoversInventoryActions(t *testing.T) {
	raw, err := os.ReadFile("testdata/pad-inventory-actions.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(raw), "\n") {
		tool, action, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(tool, "#") {
			continue
		}
		n++
		def, found := toolByName(tool)
		if !found {
			t.Errorf("the inventory's tool %s is missing", tool)
			continue
		}
		act, found := def.action(action)
		if !found {
			t.Errorf("%s: the inventory's action %s is missing", tool, action)
			continue
		}
		if p, pending := notWired[actionKey(def, act)]; pending && !p.Never {
			t.Errorf("%s %s is declared but answers not_implemented (%s)", tool, action, p.Missing)
		}
	}
	if n < 70 {
		t.Fatalf("read only %d actions from the inventory's list: the file format changed", n)
	}
}

// Every param an action names is declared by its tool, and every declared
// param is read by some action (a param nothing reads is a lie).
func TestActionParamsDeclared(t *testing.T) {
	for _, tool := range catalog {
		used := map[string]bool{"action": true, "workspace": true}
		for i := range tool.Actions {
			a := &tool.Actions[i]
			for _, p := range a.params() {
				if _, ok := tool.param(p); !ok {
					t.Errorf("%s %s reads undeclared param %s", tool.Name, a.Name, p)
				}
				used[p] = true
			}
		}
		for _, p := range tool.Params {
			if !used[p.Name] {
				t.Errorf("%s declares %s but no action reads it", tool.Name, p.Name)
			}
			if p.Desc == "" {
				t.Errorf("%s.%s has no description", tool.Name, p.Name)
			}
		}
		if !sort.SliceIsSorted(tool.Actions, func(i, j int) bool { return tool.Actions[i].Name < tool.Actions[j].Name }) {
			t.Errorf("%s: actions are not in name order", tool.Name)
		}
	}
	if !sort.SliceIsSorted(catalog, func(i, j int) bool { return catalog[i].Name < catalog[j].Name }) {
		t.Error("catalog is not in tool-name order (tools/list order)")
	}
}

// Each schema is a JSON object schema whose properties are exactly the
// declared params, requiring only action (or workspace).
func TestSchemas(t *testing.T) {
	for _, tool := range catalog {
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(inputSchema(tool), &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if s.Type != "object" || len(s.Properties) != len(tool.Params) || len(s.Required) != 1 {
			t.Errorf("%s: schema %s", tool.Name, inputSchema(tool))
		}
	}
	item, _ := toolByName("pad_item")
	var s struct {
		Properties map[string]struct {
			Enum        []string `json:"enum"`
			Description string   `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(inputSchema(item), &s)
	if got := s.Properties["action"]; len(got.Enum) != len(item.Actions) || !strings.Contains(got.Description, "create needs collection, title") {
		t.Errorf("pad_item action param: %+v", got)
	}
	if d := toolDescription(item); strings.Contains(d, "not_implemented") {
		t.Errorf("pad_item description names pending actions, and it has none: %s", d)
	}
	ws, _ := toolByName("pad_workspace")
	if d := toolDescription(ws); !strings.Contains(d, "(answer not_implemented): claim, invite.") {
		t.Errorf("pad_workspace description does not name its pending actions: %s", d)
	}
}

func TestInstructionsBudget(t *testing.T) {
	if n := len(instructions); n > instructionsBudget {
		t.Errorf("instructions are %d bytes, over the %d-byte budget: every agent pays for them on every connection", n, instructionsBudget)
	}
	for _, tool := range []string{"pad_set_workspace", "pad_item", "expected_seq"} {
		if !strings.Contains(instructions, tool) {
			t.Errorf("instructions do not mention %s", tool)
		}
	}
}

// Annotations say what is true locally: read-only tools are the ones all
// of whose actions read, and no tool reaches outside the machine.
func TestAnnotations(t *testing.T) {
	for _, tool := range catalog {
		allRead := len(tool.Actions) > 0
		for _, a := range tool.Actions {
			allRead = allRead && a.ReadOnly
		}
		if tool.Hints.ReadOnly != allRead {
			t.Errorf("%s: readOnlyHint %v, but all actions read-only is %v", tool.Name, tool.Hints.ReadOnly, allRead)
		}
		if tool.Hints.OpenWorld {
			t.Errorf("%s: openWorldHint, but padd reaches nothing outside this machine", tool.Name)
		}
		if tool.Hints.ReadOnly && tool.Hints.Destructive {
			t.Errorf("%s: read-only and destructive", tool.Name)
		}
	}
}

// padctl's help, the agents' instructions and the workspace param give
// one order for where the workspace comes from, the order both doors
// resolve it in: PAD_WORKSPACE before .pad.toml (issue 41: the
// instructions said the other way round).
func TestWorkspaceOrderIsOneInEveryText(t *testing.T) {
	flag, ok := reflect.TypeOf(cli.Root{}).FieldByName("WorkspaceFlag")
	if !ok {
		t.Fatal("cli.Root has no WorkspaceFlag")
	}
	for what, text := range map[string]string{"padctl's --workspace help": flag.Tag.Get("help"), "the instructions": instructions,
		"the workspace param": pWorkspace.Desc} {
		env, toml := strings.Index(text, "PAD_WORKSPACE"), strings.Index(text, ".pad.toml")
		if env < 0 || toml < 0 || env > toml {
			t.Errorf("%s does not put PAD_WORKSPACE before .pad.toml: %q", what, text)
		}
	}
}
