package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The table is sorted by code (LookupCode searches it), names each code
// once, and answers every code with an error status.
func TestCodeTableIsSortedWithErrorStatuses(t *testing.T) {
	for i, c := range codeTable {
		if i > 0 && codeTable[i-1].Code >= c.Code {
			t.Errorf("row %d (%s) is not after row %d (%s): keep the table sorted by code, each code once", i, c.Code, i-1, codeTable[i-1].Code)
		}
		if c.Status < 400 || c.Status > 599 {
			t.Errorf("%s answers with %d, not a 4xx or 5xx status", c.Code, c.Status)
		}
		if got, ok := LookupCode(c.Code); !ok || got != c {
			t.Errorf("LookupCode(%q) = %+v, %v; the row is %+v", c.Code, got, ok, c)
		}
	}
	if c, ok := LookupCode("no_such_code"); ok {
		t.Errorf("LookupCode of an unknown code = %+v", c)
	}
	if s := StatusOf("no_such_code"); s != 400 {
		t.Errorf("StatusOf an unknown code = %d, want 400", s)
	}
}

// Every code constant, api's and the domain's in model, has a row, and
// api names each of model's codes, so that clients need only api.
func TestEveryCodeConstantHasATableRow(t *testing.T) {
	modelCodes := codeConsts(t, "../model", nil)
	apiCodes := codeConsts(t, ".", modelCodes)
	if len(modelCodes) == 0 || len(apiCodes) == 0 {
		t.Fatalf("found %d code constants in model and %d in api: the scan is broken", len(modelCodes), len(apiCodes))
	}
	for name, code := range modelCodes {
		if apiCodes[name] != code {
			t.Errorf("model.%s (%q) has no api.%s = model.%s", name, code, name, name)
		}
	}
	for name, code := range apiCodes {
		if _, ok := LookupCode(code); !ok {
			t.Errorf("api.%s (%q) has no row in the table of codes", name, code)
		}
	}
}

// No code is spelled inline, in any package of the module: where errors
// are made (model.Errorf, a Code member) and where they are read (a
// comparison with a Code, a case of a switch on one). A new code is a
// constant with a row in the table.
func TestNoInlineCodes(t *testing.T) {
	scanned := 0
	forEachGoFile(t, "..", func(path string, f *ast.File, fset *token.FileSet) {
		scanned++
		inline := func(n ast.Node, lit ast.Expr, what string) {
			t.Errorf("%s: a code spelled inline (%s) %s; use its constant (api/errors.go's table)", fset.Position(n.Pos()), litText(lit), what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if isErrorf(n.Fun) && len(n.Args) > 0 && isString(n.Args[0]) {
					inline(n, n.Args[0], "where an error is made")
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" && isString(n.Value) && litText(n.Value) != `""` {
					inline(n, n.Value, "in a Code member")
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					break
				}
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if isCode(pair[0]) && isString(pair[1]) && litText(pair[1]) != `""` {
						inline(n, pair[1], "in a comparison with a code")
					}
				}
			case *ast.SwitchStmt:
				if n.Tag == nil || !isCode(n.Tag) {
					break
				}
				for _, st := range n.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if isString(e) {
							inline(e, e, "in a case of a switch on a code")
						}
					}
				}
			}
			return true
		})
	})
	if scanned < 100 {
		t.Fatalf("scanned %d files: the walk of the module is broken", scanned)
	}
}

// isCode says e reads an error's code: x.Code, or a variable named code.
func isCode(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "Code"
	case *ast.Ident:
		return x.Name == "code"
	}
	return false
}

// codeConsts reads the constants named Code* of the package in dir,
// resolving model.CodeX through model.
func codeConsts(t *testing.T, dir string, model map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	forEachGoFileIn(t, dir, false, func(path string, f *ast.File, fset *token.FileSet) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.BasicLit:
						s, err := strconv.Unquote(v.Value)
						if err != nil {
							t.Fatalf("%s: %s = %s", fset.Position(v.Pos()), name.Name, v.Value)
						}
						out[name.Name] = s
					case *ast.SelectorExpr:
						if x, ok := v.X.(*ast.Ident); !ok || x.Name != "model" || model[v.Sel.Name] == "" {
							t.Fatalf("%s: %s is not a model code", fset.Position(v.Pos()), name.Name)
						}
						out[name.Name] = model[v.Sel.Name]
					default:
						t.Fatalf("%s: %s is neither a string nor a model code", fset.Position(v.Pos()), name.Name)
					}
				}
			}
		}
	})
	return out
}

func forEachGoFile(t *testing.T, dir string, fn func(string, *ast.File, *token.FileSet)) {
	forEachGoFileIn(t, dir, true, fn)
}

// forEachGoFileIn parses the non-test Go files of dir (and, with deep,
// of the directories below it).
func forEachGoFileIn(t *testing.T, dir string, deep bool, fn func(string, *ast.File, *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (!deep || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(path, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isErrorf: Errorf, model.Errorf or api.Errorf.
func isErrorf(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		// padctl's failf and usagef take a code first, as Errorf does.
		return f.Name == "Errorf" || f.Name == "failf" || f.Name == "usagef"
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		return ok && (x.Name == "model" || x.Name == "api") && f.Sel.Name == "Errorf"
	}
	return false
}

func isString(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING
}

func litText(e ast.Expr) string { return e.(*ast.BasicLit).Value }
