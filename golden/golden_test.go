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
	"fmt"
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
// server says whether they include server.go (generate --server), sdk
// which SDK server.go serves on (generate --sdk).
type goldenCase struct {
	name, bundle, dir string
	server            bool
	sdk               gen.SDK
}

// options are the generate options of c.
func (c goldenCase) options() gen.Options { return gen.Options{Server: c.server, SDK: c.sdk} }

// goSDKSuffix ends the name of a golden case generated with --sdk go-sdk
// (golden/sqlite-explorer-gosdk).
const goSDKSuffix = "-gosdk"

// cases returns the golden cases: every golden/<case>/bundle.json,
// generated with --server (and --sdk go-sdk when <case> ends in
// goSDKSuffix), and the composer example's checked-in client
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
		c := goldenCase{name: filepath.Dir(m), bundle: m, dir: filepath.Dir(m), server: true}
		if strings.HasSuffix(c.name, goSDKSuffix) {
			c.sdk = gen.SDKGoSDK
		}
		cs = append(cs, c)
	}
	composer := filepath.Join("..", "examples", "composer")
	return append(cs, goldenCase{name: "examples-composer", bundle: filepath.Join(composer, "sqlite-explorer.json"), dir: composer})
}

// TestGoSDKBundlesAreCopies: the bundle of a golden case generated with
// --sdk go-sdk is the bundle of the case without the suffix, byte for byte,
// so it stays what that server exports (TestBundlesMatchLiveServers
// re-exports the original).
func TestGoSDKBundlesAreCopies(t *testing.T) {
	for _, c := range cases(t) {
		if c.sdk != gen.SDKGoSDK {
			continue
		}
		orig := strings.TrimSuffix(c.name, goSDKSuffix)
		got, err := os.ReadFile(c.bundle)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(orig, "bundle.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not golden/%s/bundle.json (copy it again, then go test ./golden -update):\n%s", c.bundle, orig, firstDiff(want, got))
		}
	}
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
			outs, err := g.Bundle(b, c.options())
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range outs {
				pkgDir := filepath.Join(c.dir, out.Package)
				if *update {
					if err := removeGenerated(pkgDir); err != nil {
						t.Fatal(err)
					}
					if _, err := gen.Write(pkgDir, out.Files); err != nil {
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

// TestDeterministic generates every golden bundle twice, the second time
// with a new Generator, and compares the two runs: the same packages of the
// same servers, the same file names in the same order, the same bytes.
func TestDeterministic(t *testing.T) {
	for _, c := range cases(t) {
		b, err := bundle.Load(c.bundle)
		if err != nil {
			t.Fatal(err)
		}
		var runs [2][]gen.Output
		for i := range runs {
			g, err := gen.New()
			if err != nil {
				t.Fatal(err)
			}
			if runs[i], err = g.Bundle(b, c.options()); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range outputDiffs(runs[0], runs[1]) {
			t.Errorf("%s: %s", c.name, d)
		}
	}
}

// outputDiffs says how two generator runs differ: in their packages, the
// names or count of their files, or the bytes of a file.
func outputDiffs(first, second []gen.Output) []string {
	if len(first) != len(second) {
		return []string{fmt.Sprintf("%d packages, then %d", len(first), len(second))}
	}
	var diffs []string
	for i, a := range first {
		b := second[i]
		if a.ServerID != b.ServerID || a.Package != b.Package {
			diffs = append(diffs, fmt.Sprintf("package %d is %s (server %q), then %s (server %q)", i, a.Package, a.ServerID, b.Package, b.ServerID))
			continue
		}
		names := func(o gen.Output) []string {
			var ns []string
			for _, f := range o.Files {
				ns = append(ns, f.Name)
			}
			return ns
		}
		if an, bn := names(a), names(b); !slices.Equal(an, bn) {
			diffs = append(diffs, fmt.Sprintf("%s has files %q, then %q", a.Package, an, bn))
			continue
		}
		for j, f := range a.Files {
			if !bytes.Equal(f.Content, b.Files[j].Content) {
				diffs = append(diffs, fmt.Sprintf("%s/%s differs between two runs", a.Package, f.Name))
			}
		}
	}
	return diffs
}

// TestOutputDiffs: outputDiffs notices a package more, a file missing, a
// renamed file and changed bytes, and nothing in equal runs.
func TestOutputDiffs(t *testing.T) {
	run := func() []gen.Output {
		return []gen.Output{{ServerID: "s", Package: "s", Files: []gen.File{{Name: "client.go", Content: []byte("a")}, {Name: "types.go", Content: []byte("b")}}}}
	}
	if d := outputDiffs(run(), run()); len(d) != 0 {
		t.Errorf("equal runs: %q", d)
	}
	for name, change := range map[string]func([]gen.Output) []gen.Output{
		"a package more": func(o []gen.Output) []gen.Output { return append(o, o[0]) },
		"a file missing": func(o []gen.Output) []gen.Output { o[0].Files = o[0].Files[:1]; return o },
		"a renamed file": func(o []gen.Output) []gen.Output { o[0].Files[1].Name = "schemas.go"; return o },
		"changed bytes":  func(o []gen.Output) []gen.Output { o[0].Files[1].Content = []byte("c"); return o },
		"another server": func(o []gen.Output) []gen.Output { o[0].ServerID = "t"; return o },
	} {
		if d := outputDiffs(run(), change(run())); len(d) != 1 {
			t.Errorf("%s: %q, want one difference", name, d)
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
