// Package golden holds mcpbind's golden tests: for every folder
// golden/<case>/ with a bundle.json, the Go packages generated from it are
// checked in beside it (golden/<case>/<package>/*.go) and must match what
// the generator produces now, byte for byte. Run
//
//	go test ./golden -update
//
// to rewrite them after an intended change, and review the diff.
package golden

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
)

var update = flag.Bool("update", false, "rewrite the golden packages from the bundles")

// goldenCase is a bundle and the folder its packages are generated into;
// server says whether they include server.go (generate --server).
type goldenCase struct {
	name, bundle, dir string
	server            bool
}

// cases returns the golden cases: every golden/<case>/bundle.json,
// generated with --server, and the composer example's checked-in client
// package (refreshed by go generate), which must be just as current.
func cases(t *testing.T) []goldenCase {
	t.Helper()
	matches, err := filepath.Glob("*/bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatal("no golden/*/bundle.json found")
	}
	slices.Sort(matches)
	var cs []goldenCase
	for _, m := range matches {
		cs = append(cs, goldenCase{name: filepath.Dir(m), bundle: m, dir: filepath.Dir(m), server: true})
	}
	composer := filepath.Join("..", "examples", "composer")
	return append(cs, goldenCase{name: "examples-composer", bundle: filepath.Join(composer, "sqlite-explorer.json"), dir: composer})
}

func TestGolden(t *testing.T) {
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			b, err := bundle.Load(c.bundle)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := g.Bundle(b, gen.Options{Server: c.server})
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range outs {
				pkgDir := filepath.Join(c.dir, out.Package)
				if *update {
					if err := removeGenerated(pkgDir); err != nil {
						t.Fatal(err)
					}
					if err := gen.Write(pkgDir, out.Files); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want := map[string]bool{}
				for _, f := range out.Files {
					want[f.Name] = true
					got, err := os.ReadFile(filepath.Join(pkgDir, f.Name))
					if err != nil {
						t.Fatalf("%v (run go test ./golden -update)", err)
					}
					if !bytes.Equal(got, f.Content) {
						t.Errorf("%s/%s differs from what the generator produces now (run go test ./golden -update and review the diff):\n%s",
							pkgDir, f.Name, firstDiff(got, f.Content))
					}
				}
				entries, err := os.ReadDir(pkgDir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if !want[e.Name()] && !strings.HasSuffix(e.Name(), "_test.go") {
						t.Errorf("%s/%s is not generated any more (run go test ./golden -update)", pkgDir, e.Name())
					}
				}
			}
		})
	}
}

// TestDeterministic generates every golden bundle twice and compares.
func TestDeterministic(t *testing.T) {
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases(t) {
		b, err := bundle.Load(c.bundle)
		if err != nil {
			t.Fatal(err)
		}
		first, err := g.Bundle(b, gen.Options{Server: c.server})
		if err != nil {
			t.Fatal(err)
		}
		second, err := g.Bundle(b, gen.Options{Server: c.server})
		if err != nil {
			t.Fatal(err)
		}
		for i := range first {
			for j := range first[i].Files {
				if !bytes.Equal(first[i].Files[j].Content, second[i].Files[j].Content) {
					t.Errorf("%s: %s/%s differs between two runs", c.name, first[i].Package, first[i].Files[j].Name)
				}
			}
		}
	}
}

// TestCompiles builds and vets every golden package and the composer
// example, so generated code that does not compile or that vet rejects
// fails CI.
func TestCompiles(t *testing.T) {
	if *update {
		t.Skip("packages are being rewritten")
	}
	cmd := exec.Command("go", "vet", "./...", "../examples/composer/...")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go vet ./golden/...: %v\n%s", err, out)
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  checked in: " + x + "\n  generated:  " + y
		}
	}
	return "(no line differs; trailing bytes)"
}

// removeGenerated deletes the files mcpbind generated in dir (those with its
// header), leaving hand-written ones such as tests.
func removeGenerated(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(b, []byte("// Code generated by mcpbind. DO NOT EDIT.")) {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}
