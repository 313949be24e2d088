package pinning_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// diffEngine is the package that classifies schema changes (`mcpbind
// diff`'s rules).
const diffEngine = "github.com/mcpbind/mcpbind/internal/tooldiff"

// TestOnlyPinningLinksTheDiffEngine: a program that uses a generated client
// (the sqlite-explorer golden package) and composition.Connect does not
// link the diff engine; one that imports pinning does. The failure names
// the packages of the program that import the engine.
func TestOnlyPinningLinksTheDiffEngine(t *testing.T) {
	client := deps(t, "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer", "github.com/mcpbind/mcpbind/composition")
	if _, ok := client[diffEngine]; ok {
		var by []string
		for p, imports := range client {
			if slices.Contains(imports, diffEngine) {
				by = append(by, p)
			}
		}
		slices.Sort(by)
		t.Errorf("a program with a generated client and composition.Connect links %s, imported by %s", diffEngine, strings.Join(by, ", "))
	}
	if _, ok := deps(t, "github.com/mcpbind/mcpbind/composition/pinning")[diffEngine]; !ok {
		t.Errorf("pinning does not link %s: this test no longer looks for the right package", diffEngine)
	}
}

// deps runs `go list -deps` on pkgs in the module root and returns each
// package the program links with its imports.
func deps(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("this test needs the go command on PATH: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, pkgs...)...)
	cmd.Dir = testenv.ModuleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(pkgs, " "), err, stderr)
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}
