package model_test

import (
	"math/bits"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestCanonicalSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"My_WS", "my-ws"},
		{"my_ws", "my-ws"},
		{"café", "caf"},
		{"Café Society", "caf-society"},
		{"it's", "its"},
		{"Don’t Panic", "dont-panic"}, // typographic apostrophe is dropped too
		{"Bob's  Shop", "bobs-shop"},
		{"already-fine", "already-fine"},
		{"a--b", "a-b"},
		{"--a--", "a"},
		{"  spaced  out  ", "spaced-out"},
		{"UPPER 123", "upper-123"},
		{"x.y/z", "x-y-z"},
		{"日本語", ""},
		{"'''", ""},
		{"", ""},
		{"-", ""},
		{"a'b", "ab"},
		{"a ' b", "a-b"},
	}
	for _, tt := range tests {
		if got := model.CanonicalSlug(tt.in); got != tt.want {
			t.Errorf("CanonicalSlug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalSlugLongIsCutWithoutTrailingHyphen(t *testing.T) {
	in := strings.Repeat("a", 63) + " b" + strings.Repeat("c", 20)
	got := model.CanonicalSlug(in)
	if len(got) > 64 || !slugRE.MatchString(got) {
		t.Fatalf("CanonicalSlug(long) = %q (len %d)", got, len(got))
	}
	if got != strings.Repeat("a", 63) {
		t.Fatalf("CanonicalSlug(long) = %q, want the 63 a's with the hyphen trimmed", got)
	}
}

func TestCanonicalSlugIsIdempotent(t *testing.T) {
	for _, in := range []string{"My_WS", "café", "it's a test", "x--y", "A B C"} {
		once := model.CanonicalSlug(in)
		if twice := model.CanonicalSlug(once); twice != once {
			t.Errorf("CanonicalSlug(CanonicalSlug(%q)) = %q, want %q", in, twice, once)
		}
	}
}

func TestWorkspaceSlug(t *testing.T) {
	tests := []struct{ requested, name, want string }{
		{"My_WS", "Other", "my-ws"},
		{"", "My Workspace", "my-workspace"},
		{"'''", "Team's Space", "teams-space"},
		{"", "", "workspace"},
		{"日本", "日本語", "workspace"},
		{"  ", "café", "caf"},
	}
	for _, tt := range tests {
		if got := model.WorkspaceSlug(tt.requested, tt.name); got != tt.want {
			t.Errorf("WorkspaceSlug(%q, %q) = %q, want %q", tt.requested, tt.name, got, tt.want)
		}
	}
}

func TestUniqueSlug(t *testing.T) {
	takenSet := func(names ...string) func(string) bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return func(s string) bool { return m[s] }
	}
	tests := []struct {
		base  string
		taken []string
		want  string
	}{
		{"my-ws", nil, "my-ws"},
		{"my-ws", []string{"my-ws"}, "my-ws-2"},
		{"my-ws", []string{"my-ws", "my-ws-2"}, "my-ws-3"},
		{"my-ws", []string{"my-ws", "my-ws-3"}, "my-ws-2"},
		{"my-ws", []string{"my-ws-2"}, "my-ws"},
		{"workspace", []string{"workspace", "workspace-2", "workspace-3", "workspace-4"}, "workspace-5"},
	}
	for _, tt := range tests {
		if got := model.UniqueSlug(tt.base, takenSet(tt.taken...)); got != tt.want {
			t.Errorf("UniqueSlug(%q, taken=%v) = %q, want %q", tt.base, tt.taken, got, tt.want)
		}
	}
}

// A base many items share costs logarithmic probes, and the answer is
// the next suffix when the taken ones are dense, a free one otherwise.
func TestUniqueSlugShared(t *testing.T) {
	for _, k := range []int{1, 2, 3, 7, 8, 9, 100, 1000, 100_000} {
		taken := map[string]bool{"item": true}
		for n := 2; n <= k; n++ {
			taken["item-"+strconv.Itoa(n)] = true
		}
		probes := 0
		got := model.UniqueSlug("item", func(s string) bool { probes++; return taken[s] })
		if want := "item-" + strconv.Itoa(k+1); got != want {
			t.Errorf("%d items share \"item\": got %q, want %q", k, got, want)
		}
		if limit := 2*bits.Len(uint(k)) + 2; probes > limit {
			t.Errorf("%d items share \"item\": %d probes, want at most %d", k, probes, limit)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		taken := map[string]bool{"x": true}
		for range rng.IntN(300) {
			taken["x-"+strconv.Itoa(2+rng.IntN(400))] = true
		}
		if got := model.UniqueSlug("x", func(s string) bool { return taken[s] }); taken[got] || !strings.HasPrefix(got, "x-") {
			t.Fatalf("UniqueSlug gave %q, which is taken or not base-N", got)
		}
	}
}

func TestItemSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Fix the login bug", "fix-the-login-bug"},
		{"Don't break prod!", "dont-break-prod"},
		{"", "item"},
		{"!!!", "item"},
		{"日本語", "item"},
	}
	for _, tt := range tests {
		if got := model.ItemSlug(tt.in); got != tt.want {
			t.Errorf("ItemSlug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Long titles are cut at a word boundary, at most 60 characters.
	long := "implement the new synchronisation protocol between the daemon and the remote pad server"
	got := model.ItemSlug(long)
	if len(got) > 60 || !slugRE.MatchString(got) || !strings.HasPrefix(model.CanonicalSlug(long), got+"-") {
		t.Fatalf("ItemSlug(long) = %q (len %d): want a word-boundary cut of at most 60", got, len(got))
	}
	// One long word has no boundary past 20: a hard cut.
	word := strings.Repeat("x", 100)
	if got := model.ItemSlug(word); got != strings.Repeat("x", 60) {
		t.Fatalf("ItemSlug(100 x) = %q, want 60 x", got)
	}
}

func TestDerivePrefix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Tasks", "TASK"},
		{"Ideas", "IDEA"},
		{"Plans", "PLAN"},
		{"Docs", "DOC"},
		{"Bugs", "BUG"},
		{"Conventions", "CONVE"},
		{"Playbooks", "PLAYB"},
		{"Bus", "BUS"}, // too short to drop an 's'
		{"Release Notes", "RN"},
		{"design-system_tokens", "DST"},
		{"a b c d e f g", "ABCDE"},
		{"Café", "CAF"},
		{"", "ITEM"},
		{"!!!", "ITEM"},
		{"日本語", "ITEM"},
		// A prefix must start with a letter, so digits at the front go.
		{"2024", "ITEM"},
		{"2024 Roadmap", "R"},
		{"3D Models", "M"},
	}
	for _, tt := range tests {
		got := model.DerivePrefix(tt.in)
		if got != tt.want {
			t.Errorf("DerivePrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !model.ValidPrefix(got) {
			t.Errorf("DerivePrefix(%q) = %q, which ValidPrefix refuses", tt.in, got)
		}
	}
}

func TestValidPrefix(t *testing.T) {
	for p, want := range map[string]bool{
		"TASK": true, "T": true, "BUG2": true, "ABCDEFGHIJ": true,
		"": false, "ABCDEFGHIJK": false, "task": false, "2BUG": false, "TA-SK": false, "TÄSK": false,
	} {
		if got := model.ValidPrefix(p); got != want {
			t.Errorf("ValidPrefix(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want model.Ref
		ok   bool
	}{
		{"TASK-12", model.Ref{"TASK", 12}, true},
		{"task-12", model.Ref{"TASK", 12}, true},
		{"Conve-1", model.Ref{"CONVE", 1}, true},
		{"BUG2-7", model.Ref{"BUG2", 7}, true},
		{"TASK-999999999999999999", model.Ref{"TASK", 999999999999999999}, true},
		{"TASK-0", model.Ref{}, false},
		{"TASK-012", model.Ref{}, false},
		{"TASK-", model.Ref{}, false},
		{"-12", model.Ref{}, false},
		{"TASK12", model.Ref{}, false},
		{"TASK-1x", model.Ref{}, false},
		{"TASK-+5", model.Ref{}, false},
		{"TASK--5", model.Ref{}, false},
		{"TASK-1234567890123456789", model.Ref{}, false},
		{"2BUG-1", model.Ref{}, false},
		{"MY-TASK-3", model.Ref{}, false}, // prefix "MY-TASK" is not a valid prefix
		{"ABCDEFGHIJK-1", model.Ref{}, false},
		{"taſk-5", model.Ref{}, false}, // long s must not upper-case into S
		{"ıdea-5", model.Ref{}, false}, // dotless i must not upper-case into I
		{"", model.Ref{}, false},
		{"my-task", model.Ref{}, false},
	}
	for _, tt := range tests {
		got, ok := model.ParseRef(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseRef(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok {
			if got.String() != strings.ToUpper(tt.in) {
				t.Errorf("ParseRef(%q).String() = %q", tt.in, got.String())
			}
		}
	}
}

func TestRefString(t *testing.T) {
	if got := (model.Ref{Prefix: "PLAN", Number: 3}).String(); got != "PLAN-3" {
		t.Fatalf("Ref.String() = %q", got)
	}
}

func TestCollectionAliases(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"tasks", []string{"task"}},
		{"task", []string{"tasks"}},
		{"ideas", []string{"idea"}},
		{"idea", []string{"ideas"}},
		{"Tasks", []string{"tasks", "task"}},
		{" task ", []string{"task", "tasks"}},
		{"t", []string{"tasks", "ts"}},
		{"phase", []string{"plans", "phases"}},
		{"phases", []string{"plans", "phase"}},
		{"p", []string{"plans", "ps"}},
		{"d", []string{"docs", "ds"}},
		{"i", []string{"ideas", "is"}},
		{"", nil},
		{"   ", nil}, // whitespace names nothing: no empty alias
	}
	for _, tt := range tests {
		if got := model.CollectionAliases(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CollectionAliases(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCollectionAliasesFindTheDefaultCollections(t *testing.T) {
	// COL-08: the singular form reaches the default collection, and the
	// one-letter shorthands do too.
	for in, want := range map[string]string{
		"task": "tasks", "idea": "ideas", "plan": "plans", "doc": "docs",
		"convention": "conventions", "playbook": "playbooks",
		"t": "tasks", "i": "ideas", "p": "plans", "d": "docs",
	} {
		found := false
		for _, a := range model.CollectionAliases(in) {
			found = found || a == want
		}
		if !found {
			t.Errorf("CollectionAliases(%q) = %q: missing %q", in, model.CollectionAliases(in), want)
		}
	}
}
