package composition_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestClientProgramLinks: a program that uses only a generated client (the
// sqlite-explorer golden package) and composition.Connect links none of the
// forbidden packages: what it does not use must not cost it a dependency
// (and the init work and binary size of one). The failure names the chain
// of imports from the program to each forbidden package, from `go list
// -deps -json`.
func TestClientProgramLinks(t *testing.T) {
	forbidden := []string{
		"github.com/goccy/go-yaml", // servers.yaml: composition/serverconfig reads it
		// (internal/tooldiff joins when pinning stops importing the diff engine)
	}
	program := []string{
		"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer", // the generated client
		"github.com/mcpbind/mcpbind/composition",                           // Connect
	}
	imports := listImports(t, program)
	for _, f := range forbidden {
		if chain := chainTo(program, imports, func(p string) bool { return p == f || strings.HasPrefix(p, f+"/") }); chain != nil {
			t.Errorf("a program with a generated client and composition.Connect links %s:\n  %s", f, strings.Join(chain, "\n  → "))
		}
	}
}

// listImports runs `go list -deps -json` on pkgs in the module root and
// returns each package's imports by import path.
func listImports(t *testing.T, pkgs []string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("this test needs the go command on PATH: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-deps", "-json=ImportPath,Imports"}, pkgs...)...)
	cmd.Dir = testenv.ModuleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(pkgs, " "), err, stderr.Bytes())
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list -deps -json: %v", err)
		}
		imports[p.ImportPath] = p.Imports
	}
	return imports
}

// chainTo returns the shortest chain of imports from one of roots to a
// package that bad matches (roots first, that package last), or nil when
// none is reached.
func chainTo(roots []string, imports map[string][]string, bad func(string) bool) []string {
	from := map[string]string{}
	for _, r := range roots {
		from[r] = ""
	}
	for queue := slices.Clone(roots); len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if bad(p) {
			var chain []string
			for q := p; q != ""; q = from[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
