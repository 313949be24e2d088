package testrules

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// timeFuncs are the functions of package time that a test uses to sleep or
// to measure elapsed time.
var timeFuncs = []string{"Sleep", "Since", "Until"}

// allowed lists the uses of timeFuncs that are neither synchronisation nor
// assertion, by "path: time.Func" (path from the module root, slashes), with
// why. An entry that no longer matches fails the test, so the list stays
// exact.
func allowed() map[string]string {
	return map[string]string{
		"testservers/schemasuite/suite_test.go: time.Since": "logs how long each phase of the suite took; compares nothing",
		"composition/registry_example_test.go: time.Since":  "the example of WithInterceptor shows a timing interceptor, which logs the duration",
		"testservers/testenv/wait.go: time.Sleep":           "testenv.Poll, the one poll for states nothing notifies of (thread stop state, pipe fill, fd and goroutine counts), with a hang bound",
		"composition/flood_bench_test.go: time.Since":       "BenchmarkPinnedCallFlood reports CPU per wall second as a metric; asserts nothing",
		"composition/hostileargs_test.go: time.Since":       "TestHostileArgsMeasured logs each hostile call's duration beside its memory figures; asserts no duration",
		"composition/hostilehost_test.go: time.Since":       "the ListenHTTP measurements log flood and shutdown durations beside memory and goroutine figures; assert no duration",
	}
}

// helperDirs are directories of non-test files that only tests use; their
// files follow the same rules.
var helperDirs = []string{"testservers/testenv"}

// TestNoSleepsNoTimedAssertions fails when a test file (or a test helper
// package) calls time.Sleep, time.Since or time.Until outside the allowed
// list: a test waits for a signal, with a generous bound that only a genuine
// hang reaches, and asserts no duration.
func TestNoSleepsNoTimedAssertions(t *testing.T) {
	root, files := testFiles(t)
	allow := allowed()
	used := map[string]bool{}
	fset := token.NewFileSet()
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range timeCalls(f) {
			key := rel + ": time." + call.name
			if _, ok := allow[key]; ok {
				used[key] = true
				continue
			}
			t.Errorf("%s: time.%s in a test: wait for a signal (a channel, a barrier, a line the server writes, a context's deadline) with a generous bound for hangs, and assert no duration",
				fset.Position(call.pos), call.name)
		}
	}
	for key := range allow {
		if !used[key] {
			t.Errorf("allowed() lists %q, which no longer occurs: remove it", key)
		}
	}
}

// TestEveryExampleRuns fails when an Example function has no "// Output:"
// comment: go test compiles such an example but never runs it, so it can
// rot unnoticed.
func TestEveryExampleRuns(t *testing.T) {
	root, files := testFiles(t)
	fset := token.NewFileSet()
	n := 0
	for _, rel := range files {
		if !strings.HasSuffix(rel, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range doc.Examples(f) {
			n++
			if ex.Output == "" && !ex.EmptyOutput {
				t.Errorf("%s: Example%s has no // Output: comment, so go test never runs it", fset.Position(ex.Code.Pos()), ex.Name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no Example functions found; the walk is broken")
	}
}

// testFiles returns the module root and the files the rules apply to (paths
// from the root, slashes): every _test.go file outside node_modules, testdata
// and hidden folders, and the files of helperDirs.
func testFiles(t *testing.T) (string, []string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, ".go") && slices.Contains(helperDirs, filepath.ToSlash(filepath.Dir(rel))) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found %d test files under %s; the walk is broken", len(files), root)
	}
	return root, files
}

// timeCall is a call of one of timeFuncs.
type timeCall struct {
	name string
	pos  token.Pos
}

// timeCalls returns the calls of timeFuncs in f, whatever name f imports
// package time under (a dot import makes every call of Sleep, Since or Until
// count).
func timeCalls(f *ast.File) []timeCall {
	pkgName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			pkgName = "time"
			if imp.Name != nil {
				pkgName = imp.Name.Name
			}
		}
	}
	if pkgName == "" || pkgName == "_" {
		return nil
	}
	var calls []timeCall
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var name string
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok && x.Name == pkgName {
				name = fun.Sel.Name
			}
		case *ast.Ident:
			if pkgName == "." {
				name = fun.Name
			}
		}
		if slices.Contains(timeFuncs, name) {
			calls = append(calls, timeCall{name, call.Pos()})
		}
		return true
	})
	return calls
}
