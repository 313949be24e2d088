package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestGenerateBadInputLosesNothing: an unreadable, truncated or
// future-version bundle, and a schema mcpbind cannot type, fail with exit 2
// and a message naming the file (and server, tool and JSON pointer), and
// leave an earlier generated package byte for byte as it was.
func TestGenerateBadInputLosesNothing(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	if _, stderr, code := runInProcess([]string{"generate", good, "-o", dir}, nil); code != 0 {
		t.Fatalf("generate of the good bundle: exit %d: %s", code, stderr)
	}
	before := snapshot(t, dir)

	write := func(name, content string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	untypeable := write("bad-ref.json", `{"bundleVersion":1,"servers":[{"id":"sqlite-explorer","serverInfo":{"name":"x"},"protocolVersion":"2025-06-18","transport":"stdio",
		"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}}]}]}`)
	for _, tc := range []struct {
		name, bundle string
		want         []string
	}{
		{"missing", filepath.Join(dir, "nope.json"), []string{"nope.json"}},
		{"not json", write("garbage.json", "not json at all"), []string{"garbage.json"}},
		{"truncated", write("trunc.json", `{"bundleVersion":1,"servers":[{"id":`), []string{"trunc.json", "truncated"}},
		{"future version", write("v9.json", `{"bundleVersion":9,"servers":[]}`), []string{"v9.json", "bundleVersion 9", "reads bundleVersion 1"}},
		{"untypeable schema", untypeable, []string{"bad-ref.json", `server "sqlite-explorer"`, `tool "t"`, "inputSchema#/properties/a", "never fetches"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runInProcess([]string{"generate", tc.bundle, "-o", dir}, nil)
			if code != exitInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitInput, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if after := snapshot(t, dir); !equalSnapshots(before, after) {
				t.Errorf("the earlier generated package changed")
			}
		})
	}
}

func TestGenerateDumpIR(t *testing.T) {
	good := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	stdout, stderr, code := runInProcess([]string{"generate", "--dump-ir", good}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d struct {
		Package string
		Tools   []struct{ Name, Result string }
	}
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("--dump-ir is not JSON: %v\n%s", err, stdout)
	}
	if d.Package != "sqliteexplorer" || len(d.Tools) != 6 || d.Tools[0].Name != "count_rows" || d.Tools[0].Result != "int64" {
		t.Fatalf("dump %+v", d)
	}
}

func TestGenerateOverrides(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	_, stderr, code := runInProcess([]string{"generate", good, "-o", dir, "--type-name", "QueryResult=Rows", "--type-name", "NoSuchType=X",
		"--type-name", "Column=TableColumn"}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "override type NoSuchType matched nothing") {
		t.Errorf("unused override not reported: %s", stderr)
	}
	src, err := os.ReadFile(filepath.Join(dir, "sqliteexplorer", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "type Rows struct") || strings.Contains(string(src), "type QueryResult struct") {
		t.Errorf("--type-name QueryResult=Rows not applied")
	}
	// A nested type is renamed by the name show lists for it.
	if !strings.Contains(string(src), "type TableColumn struct") || !strings.Contains(string(src), "Columns []TableColumn ") ||
		strings.Contains(stderr, "Column matched nothing") {
		t.Errorf("--type-name Column=TableColumn not applied: %s", stderr)
	}
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestGenerateServer: --server adds server.go (the golden one) to the
// package; without it there is none.
func TestGenerateServer(t *testing.T) {
	golden := filepath.Join("..", "..", "golden", "sqlite-explorer")
	for _, server := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"generate", filepath.Join(golden, "bundle.json"), "-o", dir}
		if server {
			args = append(args, "--server")
		}
		if _, stderr, code := runInProcess(args, nil); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, "sqliteexplorer", "server.go"))
		if !server {
			if err == nil {
				t.Errorf("generate without --server wrote server.go")
			}
			continue
		}
		want, rerr := os.ReadFile(filepath.Join(golden, "sqliteexplorer", "server.go"))
		if err != nil || rerr != nil || string(got) != string(want) {
			t.Errorf("generate --server: server.go differs from golden/sqlite-explorer (%v, %v)", err, rerr)
		}
	}
}

// TestGenerateFailsClosed runs generate through templates that add a
// top-level declaration the IR did not plan (testenv.UnplannedTemplates):
// exit 2, a message that names the unplanned declaration, and nothing
// written, neither into a fresh -o folder nor over an earlier package.
func TestGenerateFailsClosed(t *testing.T) {
	good := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	hostile := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &cli{stdout: &out, stderr: &errb, templates: testenv.UnplannedTemplates(t)})
		return errb.String(), code
	}
	fresh := t.TempDir()
	stderr, code := hostile("generate", good, "-o", fresh)
	if code != exitInput || !strings.Contains(stderr, "Injected") || !strings.Contains(stderr, "refusing to write") {
		t.Fatalf("generate through hostile templates: exit %d, stderr %q; want exit %d and the refusal", code, stderr, exitInput)
	}
	if files := snapshot(t, fresh); len(files) != 0 {
		t.Fatalf("generate wrote %v", files)
	}
	earlier := t.TempDir()
	if _, stderr, code := runInProcess([]string{"generate", good, "-o", earlier, "--server"}, nil); code != 0 {
		t.Fatalf("generate with the embedded templates: exit %d: %s", code, stderr)
	}
	before := snapshot(t, earlier)
	if stderr, code := hostile("generate", good, "-o", earlier, "--server", "--force"); code != exitInput {
		t.Fatalf("generate --force through hostile templates: exit %d, stderr %q", code, stderr)
	}
	if !equalSnapshots(before, snapshot(t, earlier)) {
		t.Fatal("generate through hostile templates changed the earlier package")
	}
}
