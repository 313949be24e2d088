package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRuntimeGuard: the client.go of a generated package declares
// "const _ = composition.SupportPackageIsVersionN" for RuntimeVersion, the
// runtime package (../composition) declares that constant, and it declares
// none newer: a runtime bumped without the generator (or the generator
// without the runtime) fails here, and a package generated for a newer
// runtime than the one it is built against fails to build (golden
// TestCompiles builds the golden packages).
func TestRuntimeGuard(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := g.Bundle(loadGolden(t, "sqlite-explorer"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var guard string
	fset := token.NewFileSet()
	for _, f := range outs[0].Files {
		af, err := parser.ParseFile(fset, f.Name, f.Content, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					if sel, ok := vs.Values[0].(*ast.SelectorExpr); ok && vs.Names[0].Name == "_" {
						if f.Name != "client.go" || guard != "" {
							t.Errorf("a second guard, in %s", f.Name)
						}
						guard = sel.X.(*ast.Ident).Name + "." + sel.Sel.Name
					}
				}
			}
		}
	}
	want := "bindimpl.SupportPackageIsVersion" + strconv.Itoa(RuntimeVersion)
	if guard != want {
		t.Fatalf("client.go guards with %q, want %q", guard, want)
	}
	consts := runtimeConstants(t)
	if !consts["SupportPackageIsVersion"+strconv.Itoa(RuntimeVersion)] {
		t.Errorf("generated code references %s, which the runtime does not declare: add it to composition", want)
	}
	if next := "SupportPackageIsVersion" + strconv.Itoa(RuntimeVersion+1); consts[next] {
		t.Errorf("the runtime declares %s but gen.RuntimeVersion is %d: bump it", next, RuntimeVersion)
	}
}

// runtimeConstants returns the names of the constants the composition
// package declares (its non-test files).
func runtimeConstants(t *testing.T) map[string]bool {
	t.Helper()
	dir := filepath.Join("..", "composition", "bindimpl")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, s := range gd.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("composition declares no constants")
	}
	return consts
}
