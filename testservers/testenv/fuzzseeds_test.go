package testenv_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestFuzzTargetsHaveSeedFiles: every fuzz target of the module (a func
// FuzzXxx in a _test.go file) has a non-empty seed corpus folder
// testdata/fuzz/FuzzXxx beside it, which go test runs as ordinary test
// cases, so that an input worth keeping is kept as a file and not only in
// f.Add calls.
func TestFuzzTargetsHaveSeedFiles(t *testing.T) {
	root := testenv.ModuleRoot(t)
	targets := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
				continue
			}
			targets++
			dir := filepath.Join(filepath.Dir(path), "testdata", "fuzz", fn.Name.Name)
			entries, err := os.ReadDir(dir)
			seeds := 0
			for _, e := range entries {
				if e.Type().IsRegular() {
					seeds++
				}
			}
			if seeds == 0 {
				rel, _ := filepath.Rel(root, dir)
				t.Errorf("fuzz target %s has no seed files in %s (%v): add the inputs worth keeping there", fn.Name.Name, rel, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets == 0 {
		t.Fatal("no fuzz target found: the walk is broken")
	}
}
