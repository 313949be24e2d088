package testrules

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notProduct are the folders (from the module root) whose packages are not
// part of the product: the test scaffolding, the benchmark commands, the
// examples and the golden generated packages. Every other package of the
// module is product.
var notProduct = []string{"testservers", "bench", "examples", "golden"}

// TestProductLinksNoTestServers fails when a product package (cmd/mcpbind,
// composition, export, gen, internal/…: every package outside notProduct)
// imports a package under testservers/, directly or not: testservers/ is
// test scaffolding, and a program built from the product must link none of
// it (issue 20). Test files are not counted: go list -deps follows the
// imports of the non-test files only.
func TestProductLinksNoTestServers(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	goList := func(args ...string) []string {
		t.Helper()
		cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		return strings.Fields(string(out))
	}
	module := goList("-m")[0]
	isUnder := func(pkg string, dirs ...string) bool {
		for _, d := range dirs {
			if pkg == module+"/"+d || strings.HasPrefix(pkg, module+"/"+d+"/") {
				return true
			}
		}
		return false
	}
	var product []string
	for _, pkg := range goList("./...") {
		if !isUnder(pkg, notProduct...) {
			product = append(product, pkg)
		}
	}
	for _, want := range []string{module + "/cmd/mcpbind", module + "/composition", module + "/export"} {
		if !slices.Contains(product, want) {
			t.Fatalf("the product packages %v lack %s; the listing is broken", product, want)
		}
	}
	// -f prints each dependency with the package that imports it, so a
	// failure names the import to remove.
	lines := goList(append([]string{"-deps", "-f", `{{range .Imports}}{{$.ImportPath}}>{{.}} {{end}}`}, product...)...)
	for _, edge := range lines {
		from, to, _ := strings.Cut(edge, ">")
		if isUnder(to, "testservers") {
			t.Errorf("%s imports %s: test scaffolding under testservers/ must not be linked into the product", from, to)
		}
	}
}
