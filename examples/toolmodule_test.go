// Package examples_test builds the example modules that have their own
// go.mod, which ./... of the root module does not reach.
package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestToolModule runs, in examples/toolmodule (a module of its own that
// records mcpbind with a go.mod tool directive), go generate (which runs
// "go tool mcpbind generate") and go build, with -mod=readonly so that a
// go.mod or go.sum that lacks anything fails, and checks that the checked-in
// files are left as they were.
func TestToolModule(t *testing.T) {
	dir := filepath.Join(testenv.ModuleRoot(t), "examples", "toolmodule")
	var files []string
	for _, pattern := range []string{"go.mod", "go.sum", "internal/mcp/*/*.go"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil || len(m) == 0 {
			t.Fatalf("examples/toolmodule has no %s: %v", pattern, err)
		}
		files = append(files, m...)
	}
	before := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		before[f] = data
	}
	defer func() { // leave the tree as it was, whatever happened
		for f, data := range before {
			if now, err := os.ReadFile(f); err != nil || !bytes.Equal(now, data) {
				_ = os.WriteFile(f, data, 0o644)
			}
		}
	}()

	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	for _, args := range [][]string{{"generate", "./..."}, {"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v in examples/toolmodule: %v\n%s", args, err, out)
		}
	}
	for _, f := range files {
		now, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !bytes.Equal(now, before[f]) {
			t.Errorf("go generate changed the checked-in %s: regenerate and commit it", f)
		}
	}
}
