package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Imports runs `go list -deps -json` on pkgs in the module root and returns
// the imports of every package the program made of pkgs links, by import
// path. It fails the test when the go command is missing or fails.
func Imports(t testing.TB, pkgs ...string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("this test needs the go command on PATH: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-deps", "-json=ImportPath,Imports"}, pkgs...)...)
	cmd.Dir = ModuleRoot(t)
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

// ImportChain returns the shortest chain of imports from one of roots to
// the package path or a package under it (roots first, that package last),
// or nil when the program does not link it. imports is what [Imports]
// returned for roots.
func ImportChain(roots []string, imports map[string][]string, path string) []string {
	from := map[string]string{}
	for _, r := range roots {
		from[r] = ""
	}
	for queue := slices.Clone(roots); len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if p == path || strings.HasPrefix(p, path+"/") {
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
