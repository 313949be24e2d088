package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

var updateShow = flag.Bool("update", false, "rewrite testdata/show from the golden bundles")

// TestShowGolden compares `mcpbind show` of every golden bundle
// (golden/*/bundle.json) in each format with testdata/show/<name>.<ext>;
// go test ./cmd/mcpbind -run TestShowGolden -update rewrites them. It also
// checks that each signature show prints is declared, word for word, in the
// golden package generated from the same bundle.
func TestShowGolden(t *testing.T) {
	root := testenv.ModuleRoot(t)
	bundles, err := filepath.Glob(filepath.Join(root, "golden", "*", "bundle.json"))
	if err != nil || len(bundles) == 0 {
		t.Fatalf("no golden bundles: %v", err)
	}
	for _, path := range bundles {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			for _, f := range []struct{ format, ext string }{{"text", "txt"}, {"json", "json"}, {"markdown", "md"}} {
				stdout, stderr, code := runInProcess([]string{"show", "--format", f.format, path}, nil)
				if code != 0 {
					t.Fatalf("show --format %s: exit %d\n%s", f.format, code, stderr)
				}
				want := filepath.Join("testdata", "show", name+"."+f.ext)
				if *updateShow {
					if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(want, []byte(stdout), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				data, err := os.ReadFile(want)
				if err != nil {
					t.Fatalf("%v (go test ./cmd/mcpbind -run TestShowGolden -update writes it)", err)
				}
				if string(data) != stdout {
					t.Errorf("show --format %s %s differs from %s (-update rewrites it):\n%s", f.format, path, want, stdout)
				}
			}

			// Every signature is the one generate declares.
			stdout, _, _ := runInProcess([]string{"show", "--format", "json", path}, nil)
			var sum summary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			b, err := bundle.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Servers) != len(b.Servers) {
				t.Fatalf("%d servers shown, the bundle has %d", len(sum.Servers), len(b.Servers))
			}
			for _, srv := range sum.Servers {
				client, err := os.ReadFile(filepath.Join(filepath.Dir(path), srv.Package, "client.go"))
				if err != nil {
					t.Fatal(err)
				}
				types, err := os.ReadFile(filepath.Join(filepath.Dir(path), srv.Package, "types.go"))
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range srv.Tools {
					if !strings.Contains(string(client), "\n"+tl.Signature+" {\n") {
						t.Errorf("tool %s: %s is not declared in the golden %s/client.go", tl.Name, tl.Signature, srv.Package)
					}
					// Every type listed is one generate declares.
					for _, name := range tl.Types {
						if !strings.Contains(string(types), "\ntype "+name+" ") {
							t.Errorf("tool %s: type %s is not declared in the golden %s/types.go", tl.Name, name, srv.Package)
						}
					}
				}
			}
		})
	}
}

func TestShowTool(t *testing.T) {
	path := filepath.Join(testenv.ModuleRoot(t), "golden", "sqlite-explorer", "bundle.json")
	stdout, stderr, code := runInProcess([]string{"show", path, "query"}, nil)
	want := "func (c *Client) Query(ctx context.Context, args QueryArgs) (*QueryResult, error)"
	if code != 0 || !strings.Contains(stdout, want) || strings.Contains(stdout, "count_rows") {
		t.Errorf("show BUNDLE query: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = runInProcess([]string{"show", path, "nope"}, nil)
	if code != exitInput || !strings.Contains(stderr, `no tool "nope"`) {
		t.Errorf("show BUNDLE nope: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runInProcess([]string{"show", "--format", "yaml", path}, nil)
	if code != exitInput || !strings.Contains(stderr, "--format") {
		t.Errorf("show --format yaml: exit %d\n%s", code, stderr)
	}
}
