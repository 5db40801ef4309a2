package model_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func fields(defs ...model.FieldDef) model.Schema { return model.Schema{Fields: defs} }

func TestValidateSchemaAccepts(t *testing.T) {
	ok := []model.Schema{
		{},
		fields(model.FieldDef{Key: "status", Type: model.TypeSelect, Options: []string{"open", "done"}, TerminalOptions: []string{"done"}}),
		fields(
			model.FieldDef{Key: "title_2", Type: model.TypeText},
			model.FieldDef{Key: "due-date", Type: model.TypeDate},
			model.FieldDef{Key: "Owner", Type: model.TypeRelation, Collection: "people"},
			model.FieldDef{Key: "n", Type: model.TypeNumber},
			model.FieldDef{Key: "tags", Type: model.TypeMultiSelect},
			model.FieldDef{Key: "slug", Type: model.TypeText, UniqueScope: model.UniqueScopeCollection},
		),
		// A select with no options may still name terminal options.
		fields(model.FieldDef{Key: "status", Type: model.TypeSelect, TerminalOptions: []string{"done"}}),
		// A relation without a target is a write-time refusal (target_missing), not a schema one.
		fields(model.FieldDef{Key: "owner", Type: model.TypeRelation}),
	}
	for i, s := range ok {
		if err := model.ValidateSchema(s); err != nil {
			t.Errorf("schema %d: unexpected error %v", i, err)
		}
	}
}

func TestValidateSchemaRefuses(t *testing.T) {
	tests := []struct {
		name    string
		schema  model.Schema
		details map[string]any
		message string
	}{
		{"missing key", fields(model.FieldDef{Key: "a", Type: "text"}, model.FieldDef{Key: "", Type: "text"}),
			map[string]any{"field_index": 1}, "field at position 2 has no key"},
		{"blank key", fields(model.FieldDef{Key: "   ", Type: "text"}),
			map[string]any{"field_index": 0}, "has no key"},
		{"repeated key", fields(
			model.FieldDef{Key: "status", Type: "select", Options: []string{"open"}},
			model.FieldDef{Key: "status", Type: "text"}),
			map[string]any{"field": "status"}, `field key "status" is defined more than once`},
		{"bad key chars", fields(model.FieldDef{Key: "due date", Type: "date"}),
			map[string]any{"field": "due date"}, "may contain only letters"},
		{"empty option", fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open", ""}}),
			map[string]any{"field": "status"}, `field "status" lists an empty option`},
		{"blank option", fields(model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"  "}}),
			map[string]any{"field": "tags"}, "empty option"},
		{"repeated option", fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done", "open"}}),
			map[string]any{"field": "status", "option": "open"}, `field "status" lists the option "open" more than once`},
		{"repeated multi option", fields(model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"a", "a"}}),
			map[string]any{"field": "tags", "option": "a"}, `field "tags" lists the option "a" more than once`},
		{"unknown terminal", fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open"}, TerminalOptions: []string{"done"}}),
			map[string]any{"field": "status", "option": "done"}, "not one of its options"},
		{"no type", fields(model.FieldDef{Key: "x"}),
			map[string]any{"field": "x"}, `field "x" has no type`},
		{"unknown type", fields(model.FieldDef{Key: "x", Type: "blob"}),
			map[string]any{"field": "x"}, `field "x" has unknown type "blob"`},
		{"bad unique scope", fields(model.FieldDef{Key: "x", Type: "text", UniqueScope: "global"}),
			map[string]any{"field": "x"}, `unknown unique_scope "global"`},
	}
	for _, reserved := range model.ReservedFields() {
		tests = append(tests, struct {
			name    string
			schema  model.Schema
			details map[string]any
			message string
		}{"reserved " + reserved, fields(model.FieldDef{Key: reserved, Type: "text"}),
			map[string]any{"field": reserved}, "is reserved for system metadata"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := model.ValidateSchema(tt.schema)
			wantInvalid(t, err, tt.details)
			wantMessage(t, err, tt.message)
		})
	}
}

func TestValidateSchemaNamesTheOptionsAsInPad(t *testing.T) {
	// COL-02's sample messages, verbatim.
	err := model.ValidateSchema(fields(model.FieldDef{Key: "status", Type: "select"}, model.FieldDef{Key: "status", Type: "select"}))
	if err == nil || err.Error() != `field key "status" is defined more than once` {
		t.Errorf("repeated key: got %v", err)
	}
	err = model.ValidateSchema(fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "open"}}))
	if err == nil || err.Error() != `field "status" lists the option "open" more than once` {
		t.Errorf("repeated option: got %v", err)
	}
}

func TestReservedFields(t *testing.T) {
	want := []string{"convention", "decision_log", "github_pr", "implementation_notes"}
	if got := model.ReservedFields(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ReservedFields() = %q, want %q", got, want)
	}
	for _, k := range want {
		if !model.IsReservedField(k) {
			t.Errorf("IsReservedField(%q) = false", k)
		}
	}
	for _, k := range []string{"status", "Convention", "github", ""} {
		if model.IsReservedField(k) {
			t.Errorf("IsReservedField(%q) = true", k)
		}
	}
}

func TestValidFieldKey(t *testing.T) {
	for k, want := range map[string]bool{
		"status": true, "due_date": true, "due-date": true, "A1": true, strings.Repeat("k", 64): true,
		"": false, " status": false, "a.b": false, "ключ": false, "a=b": false, strings.Repeat("k", 65): false,
	} {
		if got := model.ValidFieldKey(k); got != want {
			t.Errorf("ValidFieldKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestParseFieldDSL(t *testing.T) {
	s, err := model.ParseFieldDSL("status:select:open,in-progress,done; priority:select:low, high ;due:date;owners:multi_relation:people;lead:relation:people;notes:text;;")
	if err != nil {
		t.Fatal(err)
	}
	want := []model.FieldDef{
		{Key: "status", Label: "Status", Type: "select", Options: []string{"open", "in-progress", "done"}, Required: true, Default: "open"},
		{Key: "priority", Label: "Priority", Type: "select", Options: []string{"low", "high"}},
		{Key: "due", Label: "Due", Type: "date"},
		{Key: "owners", Label: "Owners", Type: "multi_relation", Collection: "people"},
		{Key: "lead", Label: "Lead", Type: "relation", Collection: "people"},
		{Key: "notes", Label: "Notes", Type: "text"},
	}
	if !reflect.DeepEqual(s.Fields, want) {
		t.Fatalf("ParseFieldDSL:\n got %+v\nwant %+v", s.Fields, want)
	}
}

func TestParseFieldDSLCases(t *testing.T) {
	tests := []struct {
		dsl  string
		want []model.FieldDef
	}{
		{"", nil},
		{" ; ; ", nil},
		{"owners:multi_relation:people", []model.FieldDef{{Key: "owners", Label: "Owners", Type: "multi_relation", Collection: "people"}}},
		{"due_date:date", []model.FieldDef{{Key: "due_date", Label: "Due Date", Type: "date"}}},
		// A status select with no options is required but has no default.
		{"status:select", []model.FieldDef{{Key: "status", Label: "Status", Type: "select", Required: true}}},
		// Only a select named status is made required.
		{"status:text", []model.FieldDef{{Key: "status", Label: "Status", Type: "text"}}},
		{"stage:select:a,b", []model.FieldDef{{Key: "stage", Label: "Stage", Type: "select", Options: []string{"a", "b"}}}},
		// The third part of a non-relation goes into Options, colons and all.
		{"x:select:a:b,c", []model.FieldDef{{Key: "x", Label: "X", Type: "select", Options: []string{"a:b", "c"}}}},
		{"n:number:5", []model.FieldDef{{Key: "n", Label: "N", Type: "number", Options: []string{"5"}}}},
	}
	for _, tt := range tests {
		s, err := model.ParseFieldDSL(tt.dsl)
		if err != nil {
			t.Errorf("ParseFieldDSL(%q): %v", tt.dsl, err)
			continue
		}
		if !reflect.DeepEqual(s.Fields, tt.want) {
			t.Errorf("ParseFieldDSL(%q):\n got %+v\nwant %+v", tt.dsl, s.Fields, tt.want)
		}
	}
}

func TestParseFieldDSLRefuses(t *testing.T) {
	tests := []struct {
		dsl     string
		details map[string]any
		message string
	}{
		{"owner:relation", map[string]any{"field": "owner"}, `field "owner" is a relation and needs its target collection: write owner:relation:<collection-slug>`},
		{"owner:relation:", map[string]any{"field": "owner"}, "needs its target collection"},
		{"owner:relation:  ", map[string]any{"field": "owner"}, "needs its target collection"},
		{"owners:multi_relation", map[string]any{"field": "owners"}, "owners:multi_relation:<collection-slug>"},
		{"status", nil, `invalid field definition "status": expected key:type[:options]`},
		{"status:select:open,open", map[string]any{"field": "status", "option": "open"}, `field "status" lists the option "open" more than once`},
		{"status:select:open,,done", map[string]any{"field": "status"}, "empty option"},
		{"status:select:open,done,", map[string]any{"field": "status"}, "empty option"},
		{"estimate:number:,0", map[string]any{"field": "estimate"}, "empty option"},
		{"a:text;a:number", map[string]any{"field": "a"}, `field key "a" is defined more than once`},
		{"x:blob", map[string]any{"field": "x"}, `unknown type "blob"`},
		{"x:", map[string]any{"field": "x"}, "has no type"},
		{":text", map[string]any{"field_index": 0}, "has no key"},
		{"github_pr:text", map[string]any{"field": "github_pr"}, "reserved"},
		{"due date:date", map[string]any{"field": "due date"}, "may contain only"},
	}
	for _, tt := range tests {
		t.Run(tt.dsl, func(t *testing.T) {
			_, err := model.ParseFieldDSL(tt.dsl)
			wantInvalid(t, err, tt.details)
			wantMessage(t, err, tt.message)
		})
	}
}

func TestParseFieldDSLOutputValidates(t *testing.T) {
	s, err := model.ParseFieldDSL("status:select:todo,done;size:number")
	if err != nil {
		t.Fatal(err)
	}
	if err := model.ValidateSchema(s); err != nil {
		t.Fatal(err)
	}
	// The injected status default is a valid value of the field.
	f, _ := s.Field("status")
	if is := model.ValidateValue(f, f.Default); is != nil {
		t.Fatalf("status default %v is invalid: %s", f.Default, is.Message)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"default":"todo"`) || !strings.Contains(string(b), `"required":true`) {
		t.Fatalf("schema JSON %s", b)
	}
}

func TestTitleCase(t *testing.T) {
	for in, want := range map[string]string{
		"due_date": "Due Date", "status": "Status", "ETA": "Eta", "invocation-slug": "Invocation Slug",
		"": "", "__": "", "a_b c": "A B C", "éclair": "Éclair",
	} {
		if got := model.TitleCase(in); got != want {
			t.Errorf("TitleCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemaLookup(t *testing.T) {
	s := fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open"}})
	if f, ok := s.Field("status"); !ok || f.Type != "select" {
		t.Fatal("Field(status) not found")
	}
	if s.Declares("priority") {
		t.Fatal("Declares(priority) = true")
	}
	if !s.Fields[0].HasOption("open") || s.Fields[0].HasOption("done") {
		t.Fatal("HasOption wrong")
	}
	for _, typ := range []string{"text", "number", "date", "select", "multi_select", "relation", "multi_relation", "checkbox", "url", "json"} {
		if !model.IsFieldType(typ) {
			t.Errorf("IsFieldType(%q) = false", typ)
		}
	}
	if model.IsFieldType("blob") || model.IsFieldType("") {
		t.Error("IsFieldType accepts an unknown type")
	}
}

func boolp(b bool) *bool { return &b }

var statusSchema = fields(model.FieldDef{Key: "status", Type: "select",
	Options: []string{"open", "done", "rejected", "shipped"}, TerminalOptions: []string{"shipped", "rejected"}})

func TestStateOf(t *testing.T) {
	defaultTerms := fields(model.FieldDef{Key: "status", Type: "select",
		Options: []string{"open", "in-progress", "done", "cancelled", "wontfix", "deprecated"}})
	boardSchema := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}},
		model.FieldDef{Key: "stage", Type: "select", Options: []string{"todo", "live", "declined"}, TerminalOptions: []string{"live", "declined"}},
	)
	tests := []struct {
		name   string
		schema model.Schema
		set    model.Settings
		fields map[string]any
		want   model.State
	}{
		{"no value", statusSchema, model.Settings{}, nil, model.StateOpen},
		{"open", statusSchema, model.Settings{}, map[string]any{"status": "open"}, model.StateOpen},
		{"declared terminal", statusSchema, model.Settings{}, map[string]any{"status": "shipped"}, model.StateDone},
		// terminal_options replace the default list: "done" is not terminal here.
		{"default word not terminal", statusSchema, model.Settings{}, map[string]any{"status": "done"}, model.StateOpen},
		{"negative terminal", statusSchema, model.Settings{}, map[string]any{"status": "rejected"}, model.StateAbandoned},
		{"default list done", defaultTerms, model.Settings{}, map[string]any{"status": "done"}, model.StateDone},
		{"default list cancelled", defaultTerms, model.Settings{}, map[string]any{"status": "cancelled"}, model.StateAbandoned},
		{"default list wontfix", defaultTerms, model.Settings{}, map[string]any{"status": "wontfix"}, model.StateAbandoned},
		{"default list deprecated", defaultTerms, model.Settings{}, map[string]any{"status": "deprecated"}, model.StateDone},
		{"default list in-progress", defaultTerms, model.Settings{}, map[string]any{"status": "in-progress"}, model.StateOpen},
		{"non-string value", defaultTerms, model.Settings{}, map[string]any{"status": num("1")}, model.StateOpen},
		{"board group-by select", boardSchema, model.Settings{BoardGroupBy: "stage"}, map[string]any{"status": "open", "stage": "live"}, model.StateDone},
		{"board group-by negative", boardSchema, model.Settings{BoardGroupBy: "stage"}, map[string]any{"status": "done", "stage": "declined"}, model.StateAbandoned},
		{"board group-by not a select", boardSchema, model.Settings{BoardGroupBy: "missing"}, map[string]any{"status": "done"}, model.StateDone},
	}
	for _, tt := range tests {
		if got := model.StateOf(tt.schema, tt.set, tt.fields); got != tt.want {
			t.Errorf("%s: StateOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestStateOfValue(t *testing.T) {
	terms := []string{"done", "Cancelled", "won't fix", "duplicate", "declined", "abandoned", "canceled", "disabled"}
	tests := map[string]model.State{
		"": model.StateOpen, "open": model.StateOpen, "done": model.StateDone,
		"Cancelled": model.StateAbandoned, // negative check ignores case
		"won't fix": model.StateAbandoned, "duplicate": model.StateAbandoned, "declined": model.StateAbandoned,
		"abandoned": model.StateAbandoned, "canceled": model.StateAbandoned, "disabled": model.StateAbandoned,
		"cancelled": model.StateOpen, // terminal match is exact
		"DONE":      model.StateOpen,
	}
	for v, want := range tests {
		if got := model.StateOfValue(v, terms); got != want {
			t.Errorf("StateOfValue(%q) = %q, want %q", v, got, want)
		}
	}
	// Every default terminal option is terminal: done or abandoned.
	for _, v := range model.DefaultTerminalOptions {
		if model.StateOfValue(v, model.DefaultTerminalOptions) == model.StateOpen {
			t.Errorf("default terminal %q reads as open", v)
		}
	}
	for _, v := range []string{"rejected", "cancelled", "wontfix", "disabled"} {
		if got := model.StateOfValue(v, model.DefaultTerminalOptions); got != model.StateAbandoned {
			t.Errorf("default terminal %q = %q, want abandoned", v, got)
		}
	}
	for _, v := range []string{"done", "completed", "resolved", "fixed", "implemented", "archived", "deprecated"} {
		if got := model.StateOfValue(v, model.DefaultTerminalOptions); got != model.StateDone {
			t.Errorf("default terminal %q = %q, want done", v, got)
		}
	}
}

func TestTerminalOptionsAndDoneField(t *testing.T) {
	key, vals := model.TerminalOptions(statusSchema, model.Settings{})
	if key != "status" || !reflect.DeepEqual(vals, []string{"shipped", "rejected"}) {
		t.Fatalf("TerminalOptions = %q %q", key, vals)
	}
	key, vals = model.TerminalOptions(model.Schema{}, model.Settings{})
	if key != "status" || !reflect.DeepEqual(vals, model.DefaultTerminalOptions) {
		t.Fatalf("TerminalOptions(empty) = %q %q", key, vals)
	}
	text := fields(model.FieldDef{Key: "phase", Type: "text"})
	if got := model.DoneField(text, model.Settings{BoardGroupBy: "phase"}); got != "status" {
		t.Fatalf("DoneField with a text group-by = %q, want status", got)
	}
}

func TestDefaultTracksWork(t *testing.T) {
	tests := []struct {
		name   string
		system bool
		schema model.Schema
		set    model.Settings
		want   bool
	}{
		{"system collection", true, statusSchema, model.Settings{}, false},
		{"declared terminal", false, statusSchema, model.Settings{}, true},
		{"default terminal list", false, fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"todo", "done"}}), model.Settings{}, true},
		{"no terminal option", false, fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"draft", "published"}}), model.Settings{}, false},
		{"status not a select", false, fields(model.FieldDef{Key: "status", Type: "text"}), model.Settings{}, false},
		{"select without options", false, fields(model.FieldDef{Key: "status", Type: "select"}), model.Settings{}, false},
		{"no status", false, fields(model.FieldDef{Key: "notes", Type: "text"}), model.Settings{}, false},
		{"board group-by", false, fields(
			model.FieldDef{Key: "status", Type: "select", Options: []string{"draft"}},
			model.FieldDef{Key: "stage", Type: "select", Options: []string{"todo", "resolved"}}),
			model.Settings{BoardGroupBy: "stage"}, true},
	}
	for _, tt := range tests {
		if got := model.DefaultTracksWork(tt.system, tt.schema, tt.set); got != tt.want {
			t.Errorf("%s: DefaultTracksWork = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSettingsIsWork(t *testing.T) {
	if !(model.Settings{}).IsWork() {
		t.Error("absent tracks_work must mean work")
	}
	if !(model.Settings{TracksWork: boolp(true)}).IsWork() || (model.Settings{TracksWork: boolp(false)}).IsWork() {
		t.Error("IsWork ignores tracks_work")
	}
	// An absent key stays absent in JSON; false is written out.
	b, _ := json.Marshal(model.Settings{})
	if strings.Contains(string(b), "tracks_work") {
		t.Errorf("absent tracks_work marshals as %s", b)
	}
	b, _ = json.Marshal(model.Settings{TracksWork: boolp(false)})
	if !strings.Contains(string(b), `"tracks_work":false`) {
		t.Errorf("tracks_work false marshals as %s", b)
	}
	c := model.Collection{Settings: model.Settings{TracksWork: boolp(false)}, Schema: statusSchema}
	if c.TracksWork() {
		t.Error("Collection.TracksWork ignores settings")
	}
	if c.State(map[string]any{"status": "shipped"}) != model.StateDone {
		t.Error("Collection.State wrong")
	}
}
