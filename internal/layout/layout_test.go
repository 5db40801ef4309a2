// Package layout holds the test of the module's shape: which package may
// import which (docs/DESIGN.md, "Packages and dependencies"), which
// packages alone may import the heavy libraries, and which of model's
// types may carry JSON tags. It reads the import lines of every non-test
// file with go/parser, so it runs in milliseconds and needs no build.
package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/padd/padd/"

// mayImport is, for each package of the product, the packages of this
// module it may import. A package missing here fails the test: a new room
// gets its row and its place in docs/DESIGN.md.
var mayImport = map[string][]string{
	"model":                    {},
	"api":                      {"model"},
	"padtoml":                  {"internal/atomicfile"},
	"internal/atomicfile":      {},
	"internal/eventbus":        {},
	"internal/launch":          {"api"},
	"internal/memuse":          {},
	"storage/engine":           {},
	"storage/internal/records": {"model", "storage/engine"},
	"storage":                  {"internal/eventbus", "model", "storage/engine", "storage/internal/records"},
	"storage/views":            {"model", "storage", "storage/internal/records"},
	"storage/syncstate":        {"model", "storage", "storage/internal/records"},
	"storage/mirrorstate":      {"model", "storage", "storage/internal/records"},
	"searchindex":              {"model", "storage", "storage/engine", "storage/views"},
	"remote/merge":             {"model"},
	"remote":                   {"api", "internal/atomicfile", "model"},
	"syncer":                   {"api", "blobstore", "internal/eventbus", "model", "remote", "remote/merge", "storage", "storage/syncstate", "storage/views"},
	"config":                   {},
	"netwatch":                 {},
	"blobstore":                {},
	"images":                   {},
	"bundle":                   {"api", "blobstore", "model"},
	"artifact":                 {"api"},
	"mirror":                   {"config", "internal/atomicfile", "model", "storage", "storage/mirrorstate", "storage/views"},
	"daemon":                   {"api", "artifact", "blobstore", "bundle", "config", "images", "internal/atomicfile", "internal/eventbus", "internal/launch", "internal/memuse", "mirror", "model", "netwatch", "searchindex", "storage", "storage/mirrorstate", "storage/views", "syncer"},
	"mcpstdio":                 {"api", "internal/launch", "padtoml"},
	"mcpinstall":               {"internal/atomicfile"},
	"userservice":              {"internal/atomicfile"},
	"cli":                      {"api", "internal/launch", "mcpinstall", "model", "padtoml", "userservice"},
	"cmd/padd":                 {"api", "daemon", "internal/launch", "mcpstdio", "padtoml"},
	"cmd/padctl":               {"cli"},
	"tray":                     {"api", "internal/launch", "mcpinstall", "model"},
	"cmd/padtray":              {"api", "tray"},
}

// tools are the developers' packages (tests, scripts, generators): they
// may import anything, and nothing of the product may import them.
var tools = []string{"bench", "bundle/bundletest", "e2e", "images/imagetest", "internal/faultreport", "internal/inventory", "internal/layout", "internal/leakcheck", "internal/procstat", "internal/syncfaultreport", "internal/testbin", "internal/testremote", "internal/testrun", "internal/testwait", "packaging/", "scripts/"}

// onlyIn names, for each library, the packages that alone may import it
// (by import path prefix).
var onlyIn = map[string][]string{
	"go.etcd.io/bbolt":                 {"storage/engine"},
	"github.com/blevesearch/":          {"searchindex"},
	"github.com/RoaringBitmap/roaring": {"searchindex"},
	"github.com/mark3labs/mcp-go":      {"mcpstdio"},
	"github.com/alecthomas/kong":       {"cli"},
	"github.com/fsnotify/fsnotify":     {"padtoml", "config", "mirror"},
	"gopkg.in/natefinch/lumberjack.v2": {"daemon"},
	"fyne.io/systray":                  {"tray"},
	"github.com/godbus/dbus":           {"tray"},
	"github.com/gen2brain/beeep":       {"tray"},
}

// noIO are the standard packages model may not import: it is the domain's
// rules, with no I/O and no wire.
var noIO = []string{"net", "net/http", "os", "os/exec", "path/filepath", "io/fs", "log", "log/slog", "syscall"}

// neverInPadctl are what padctl must not link, directly or not: the
// database, the index and the MCP server are padd's.
var neverInPadctl = []string{"go.etcd.io/bbolt", "github.com/blevesearch/bleve/v2", "github.com/mark3labs/mcp-go/server"}

// jsonTagged are model's types that may carry JSON tags, by why.
var jsonTagged = map[string]string{
	// The database's record formats (storage encodes them as JSON).
	"Actor": "record", "Workspace": "record", "Collection": "record", "Item": "record", "Comment": "record",
	"Link": "record", "Role": "record", "Activity": "record", "Version": "record", "Change": "record",
	"FieldDef": "record", "Schema": "record", "Settings": "record", "QuickAction": "record",
	"Lease": "record", "Reminder": "record", "PatchReply": "record", "PatchEdit": "record",
	"AppliedEdit": "record", "Intervening": "record", "InterveningChange": "record", "ReportLayout": "record", "Reaction": "record",
	"SavedView": "record", "WorkspaceContext": "record", "WorkspaceRepository": "record", "WorkspacePaths": "record",
	"WorkspaceCommands": "record", "WorkspaceStack": "record", "WorkspaceDeployment": "record",
	// A playbook's stored arguments field, which ParseArgSpecs decodes.
	"ArgSpec": "record",
	// The item brief's budget is counted in characters of each part's JSON.
	"ContextBrief": "budget", "ContextItem": "budget", "ContextParent": "budget", "ContextConvention": "budget",
	"PlaybookMeta": "budget", "ContextDep": "budget", "ContextDeps": "budget", "ContextDecision": "budget",
	"ContextLink": "budget", "ContextOmitted": "budget", "ContextConflicts": "budget", "ConflictRef": "budget",
	"ConventionClash": "budget", "AcceptanceCriterion": "budget",
}

// pkg is one package's non-test imports.
type pkg struct {
	path    string          // module-relative
	imports map[string]bool // full import paths
}

func readModule(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkg{path: rel, imports: map[string]bool{}}
			pkgs[rel] = p
		}
		for _, im := range f.Imports {
			p.imports[strings.Trim(im.Path.Value, `"`)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func isTool(p string) bool {
	return slices.ContainsFunc(tools, func(t string) bool { return p == t || strings.HasSuffix(t, "/") && strings.HasPrefix(p, t) })
}

func under(p string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return p == r || strings.HasPrefix(p, r+"/") })
}

func TestPackagesImportOnlyDownward(t *testing.T) {
	for _, p := range readModule(t) {
		if isTool(p.path) {
			continue
		}
		allowed, ok := mayImport[p.path]
		if !ok {
			t.Errorf("%s is not in the layout's table: give it a row in mayImport and a place in docs/DESIGN.md", p.path)
			continue
		}
		for im := range p.imports {
			ours, isOurs := strings.CutPrefix(im, module)
			switch {
			case isOurs && isTool(ours):
				t.Errorf("%s imports %s, a developers' package", p.path, ours)
			case isOurs && !slices.Contains(allowed, ours):
				t.Errorf("%s imports %s; it may import only %v (docs/DESIGN.md)", p.path, ours, allowed)
			}
		}
	}
}

func TestLibrariesStayInTheirPackage(t *testing.T) {
	for _, p := range readModule(t) {
		for im := range p.imports {
			for lib, homes := range onlyIn {
				if strings.HasPrefix(im, lib) && !under(p.path, homes) && !isTool(p.path) {
					t.Errorf("%s imports %s, which only %v may", p.path, im, homes)
				}
			}
			if p.path == "model" && slices.Contains(noIO, im) {
				t.Errorf("model imports %s: model is the domain's rules, with no I/O", im)
			}
		}
	}
}

func TestPadctlLinksNoneOfPaddsInsides(t *testing.T) {
	pkgs := readModule(t)
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if q := pkgs[p]; q != nil {
			for im := range q.imports {
				if ours, ok := strings.CutPrefix(im, module); ok {
					walk(ours)
				} else {
					seen[im] = true
				}
			}
		}
	}
	walk("cmd/padctl")
	for _, lib := range neverInPadctl {
		for dep := range seen {
			if strings.HasPrefix(dep, lib) {
				t.Errorf("padctl links %s (through its imports): that is padd's", dep)
			}
		}
	}
}

func TestModelTypesWithJSONTags(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../model/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if fl.Tag != nil && reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("json") != "" {
					found = append(found, ts.Name.Name)
					break
				}
			}
			return true
		})
	}
	sort.Strings(found)
	for _, name := range found {
		if jsonTagged[name] == "" {
			t.Errorf("model.%s has JSON tags: a wire shape belongs in api (converted at daemon's edge); a record format or a budgeted part goes in jsonTagged with its reason", name)
		}
	}
	for name := range jsonTagged {
		if !slices.Contains(found, name) {
			t.Errorf("jsonTagged lists model.%s, which has no JSON tags any more: take it off the list", name)
		}
	}
}
