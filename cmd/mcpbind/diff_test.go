package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// diffEditTool returns the bundle data with the raw JSON of one tool passed
// through edit, which must change it, and without the x-mcpbind facts
// derived from the unedited tools (diff does not read them).
func diffEditTool(t *testing.T, data []byte, tool string, edit func(raw string) string) []byte {
	t.Helper()
	b, err := bundle.Parse(data, "bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Servers {
		for j, tl := range b.Servers[i].Tools {
			if tl.Name != tool {
				continue
			}
			raw := edit(string(tl.Raw))
			if raw == string(tl.Raw) {
				t.Fatalf("the edit of tool %s changed nothing; has sqlite-explorer changed? %s", tool, tl.Raw)
			}
			nt, err := bundle.NewTool(json.RawMessage(raw))
			if err != nil {
				t.Fatalf("edited tool: %v\n%s", err, raw)
			}
			b.Servers[i].Tools[j] = nt
			b.Servers[i].Extensions = nil // derived facts (digests) of the unedited tools
			out, err := b.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("no tool %s in the bundle", tool)
	return nil
}

// diffReplaceOnce replaces old, which must occur exactly once in s.
func diffReplaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times in %s", old, n, s)
	}
	return strings.Replace(s, old, new, 1)
}

func diffWriteFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiffAndCheck exports sqlite-explorer over stdio with the mcpbind
// binary, makes three edited copies of the bundle (a new required input
// property: breaking; a new optional one: compatible; a new tool
// description: cosmetic), and checks `mcpbind diff` in every format and
// under every --fail-on, and `mcpbind check` against the live server with
// the unchanged bundle, the tampered ones and one that lacks a tool.
func TestDiffAndCheck(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	command, args := testenv.SQLiteExplorerStdio(t)
	server := append([]string{"--", command}, args...)
	dir := t.TempDir()
	baseData := mustExport(t, bin, nil, server...)
	base := diffWriteFile(t, filepath.Join(dir, "base.json"), baseData)

	const limit = `"limit":{"type":"integer","description":"Return at most this many rows."},`
	breaking := diffWriteFile(t, filepath.Join(dir, "breaking.json"), diffEditTool(t, baseData, "query", func(raw string) string {
		raw = diffReplaceOnce(t, raw, `"properties":{"sql":`, `"properties":{`+limit+`"sql":`)
		return diffReplaceOnce(t, raw, `"required":["sql"]`, `"required":["sql","limit"]`)
	}))
	compatible := diffWriteFile(t, filepath.Join(dir, "compatible.json"), diffEditTool(t, baseData, "query", func(raw string) string {
		return diffReplaceOnce(t, raw, `"properties":{"sql":`, `"properties":{`+limit+`"sql":`)
	}))
	cosmetic := diffWriteFile(t, filepath.Join(dir, "cosmetic.json"), diffEditTool(t, baseData, "query", func(raw string) string {
		var tool struct{ Description string }
		if err := json.Unmarshal([]byte(raw), &tool); err != nil || tool.Description == "" {
			t.Fatalf("query has no description: %s", raw)
		}
		old, _ := json.Marshal(tool.Description)
		return strings.Replace(raw, `"description":`+string(old), `"description":"Run one read-only SQL statement; return its columns and rows."`, 1)
	}))

	renamed := diffWriteFile(t, filepath.Join(dir, "renamed.json"), bytes.Replace(baseData, []byte(`"name": "sqlite-explorer"`), []byte(`"name": "other-server"`), 1))

	ob, err := bundle.Parse(baseData, base)
	if err != nil {
		t.Fatal(err)
	}
	ob.Servers[0].Tools = slices.DeleteFunc(ob.Servers[0].Tools, func(tl bundle.Tool) bool { return tl.Name == "list_tables" })
	ob.Servers[0].Extensions = nil
	olderData, err := ob.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	older := diffWriteFile(t, filepath.Join(dir, "older.json"), olderData)

	type run struct {
		args     []string
		code     int
		contains []string // on stdout
		stderr   string
	}
	diffRuns := map[string][]run{
		"unchanged": {
			{args: []string{"diff", base, base}, code: 0},
			{args: []string{"diff", "--fail-on", "any", base, base}, code: 0, stderr: "0 breaking, 0 compatible, 0 cosmetic, 0 Go API changes"},
		},
		"breaking": {
			{args: []string{"diff", base, breaking}, code: 1, contains: []string{
				"breaking  sqlite-explorer/query  input /properties/limit: new required property\n",
				"api       sqlite-explorer/query  go QueryArgs.Limit: field added: Limit int64\n",
			}, stderr: "1 breaking change (--fail-on breaking)"},
			{args: []string{"diff", "--format", "json", base, breaking}, code: 1, contains: []string{
				`"formatVersion": 1`, `"breaking": true`, `"apiChanged": true`, `"code": "property-added"`, `"pointer": "/properties/limit"`,
			}},
			{args: []string{"diff", "--format", "markdown", base, breaking}, code: 1, contains: []string{
				"## sqlite-explorer", "| class | tool | where | pointer | change |",
				"| **breaking** | `query` | input | `/properties/limit` | new required property |",
			}},
			{args: []string{"diff", "--fail-on", "none", base, breaking}, code: 0},
			{args: []string{"diff", "--fail-on", "api", base, breaking}, code: 1, stderr: "1 change to the generated Go API (--fail-on api)"},
			// The other way round, the property disappears from a closed
			// object: still breaking.
			{args: []string{"diff", breaking, base}, code: 1, contains: []string{
				"breaking  sqlite-explorer/query  input /properties/limit: property removed and additionalProperties is false: the server now rejects it\n",
			}},
		},
		"compatible": {
			{args: []string{"diff", base, compatible}, code: 0, contains: []string{
				"compatible  sqlite-explorer/query  input /properties/limit: new optional property\n",
				"api         sqlite-explorer/query  go QueryArgs.Limit: field added: Limit *int64\n",
			}},
			{args: []string{"diff", "--format", "json", base, compatible}, code: 0, contains: []string{`"breaking": false`, `"compatible": 1`}},
			{args: []string{"diff", "--format", "markdown", base, compatible}, code: 0, contains: []string{"| compatible | `query` | input | `/properties/limit` | new optional property |"}},
			{args: []string{"diff", "--fail-on", "api", base, compatible}, code: 1},
			{args: []string{"diff", "--fail-on", "any", base, compatible}, code: 1},
		},
		"cosmetic": {
			{args: []string{"diff", base, cosmetic}, code: 0, contains: []string{
				"cosmetic  sqlite-explorer/query  tool /description: changed\n",
			}, stderr: "0 breaking, 0 compatible, 1 cosmetic, 0 Go API changes"},
			{args: []string{"diff", "--format", "json", base, cosmetic}, code: 0, contains: []string{`"cosmetic": 1`, `"pointer": "/description"`}},
			{args: []string{"diff", "--format", "markdown", base, cosmetic}, code: 0, contains: []string{"| cosmetic | `query` | tool | `/description` | changed |"}},
			{args: []string{"diff", "--fail-on", "api", base, cosmetic}, code: 0},
			{args: []string{"diff", "--fail-on", "any", base, cosmetic}, code: 1, stderr: "1 change (--fail-on any)"},
		},
		"check": {
			{args: append([]string{"check", base}, server...), code: 0, stderr: "0 breaking, 0 compatible, 0 cosmetic, 0 Go API changes"},
			{args: append([]string{"check", "--fail-on", "any", base}, server...), code: 0},
			{args: append([]string{"check", breaking}, server...), code: 1, contains: []string{
				"breaking  sqlite-explorer/query  input /properties/limit: property removed and additionalProperties is false: the server now rejects it\n",
				"api       sqlite-explorer/query  go QueryArgs.Limit: field removed: Limit int64\n",
			}, stderr: "1 breaking change (--fail-on breaking)"},
			// The bundle's optional property is gone from the live closed
			// object: a client generated from the bundle may send it.
			{args: append([]string{"check", "--format", "json", "--id", "sqlite-explorer", compatible}, server...), code: 1, contains: []string{
				`"new": "live `, `"code": "property-removed"`, `"class": "breaking"`,
			}},
			// The live server has a tool the bundle lacks.
			{args: append([]string{"check", older}, server...), code: 0, contains: []string{
				"compatible  sqlite-explorer/list_tables  tool: tool added\n",
				"api         sqlite-explorer/list_tables  go Client.ListTables: method added: ListTables(ctx context.Context) ([]string, error)\n",
			}},
			{args: append([]string{"check", "--fail-on", "api", cosmetic}, server...), code: 0, contains: []string{"cosmetic  sqlite-explorer/query  tool /description: changed\n"}},
			// The wrong server: said first.
			{args: append([]string{"check", renamed}, server...), code: 0, stderr: `warning: the live server is named "sqlite-explorer", but server "sqlite-explorer" of ` + renamed + ` was exported from "other-server"`},
		},
	}
	for name, runs := range diffRuns {
		t.Run(name, func(t *testing.T) {
			for _, r := range runs {
				got := runBinary(t, bin, nil, r.args...)
				if got.code != r.code {
					t.Errorf("mcpbind %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), got.code, r.code, got.stdout, got.stderr)
					continue
				}
				for _, want := range r.contains {
					if !strings.Contains(got.stdout, want) {
						t.Errorf("mcpbind %s: stdout lacks %q:\n%s", strings.Join(r.args, " "), want, got.stdout)
					}
				}
				if len(r.contains) == 0 && r.code == 0 && strings.Contains(name, "unchanged") && got.stdout != "" {
					t.Errorf("mcpbind %s: stdout %q, want nothing", strings.Join(r.args, " "), got.stdout)
				}
				if !strings.Contains(got.stderr, r.stderr) {
					t.Errorf("mcpbind %s: stderr lacks %q:\n%s", strings.Join(r.args, " "), r.stderr, got.stderr)
				}
				if slices.Contains(r.args, "json") {
					var v map[string]any
					if err := json.Unmarshal([]byte(got.stdout), &v); err != nil {
						t.Errorf("mcpbind %s: stdout is not JSON: %v\n%s", strings.Join(r.args, " "), err, got.stdout)
					}
				}
			}
		})
	}

	// Bad input to check: an unknown --id (before the server starts), a
	// server that cannot start.
	r := runBinary(t, bin, nil, append([]string{"check", "--id", "nope", base}, server...)...)
	if r.code != exitInput || !strings.Contains(r.stderr, `no server "nope" in the bundle (it has server "sqlite-explorer")`) {
		t.Errorf("check --id nope: exit %d\n%s", r.code, r.stderr)
	}
	r = runBinary(t, bin, nil, "check", base, "--", filepath.Join(dir, "no-such-server"))
	if r.code != exitServer {
		t.Errorf("check with a server that cannot start: exit %d, want %d\n%s", r.code, exitServer, r.stderr)
	}
}

// TestDiffUsageAndInputErrors: exit 2, the file named, nothing on stdout.
func TestDiffUsageAndInputErrors(t *testing.T) {
	dir := t.TempDir()
	good := diffWriteFile(t, filepath.Join(dir, "good.json"), []byte(`{"bundleVersion":1,"servers":[]}`+"\n"))
	garbage := diffWriteFile(t, filepath.Join(dir, "garbage.json"), []byte("not json"))
	wrongVersion := diffWriteFile(t, filepath.Join(dir, "v9.json"), []byte(`{"bundleVersion":9,"servers":[]}`))
	missing := filepath.Join(dir, "missing.json")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing old", []string{"diff", missing, good}, missing + ": cannot read bundle"},
		{"missing new", []string{"diff", good, missing}, missing + ": cannot read bundle"},
		{"not JSON", []string{"diff", good, garbage}, garbage + ":1:"},
		{"unknown version", []string{"diff", wrongVersion, good}, wrongVersion + ": "},
		{"one argument", []string{"diff", good}, "diff takes two bundle files, OLD and NEW; got 1 argument"},
		{"three arguments", []string{"diff", good, good, good}, "got 3 arguments"},
		{"bad format", []string{"diff", "--format", "xml", good, good}, `--format "xml": want text, json or markdown`},
		{"bad fail-on", []string{"diff", "--fail-on", "warning", good, good}, `--fail-on "warning": want breaking, api, any or none`},
		{"check without bundle", []string{"check", "--", "node"}, "missing the BUNDLE to check"},
		{"check without server", []string{"check", good}, "missing the server"},
		{"check missing bundle", []string{"check", missing, "--", "mcpbind-no-such-server-4711"}, missing + ": cannot read bundle"},
		{"check empty bundle", []string{"check", good, "--", "mcpbind-no-such-server-4711"}, good + ": the bundle has no servers"},
		{"check bad format", []string{"check", "--format", "yaml", good, "--", "node"}, `--format "yaml"`},
		{"check header for stdio", []string{"check", "--header", "X-A: b", good, "--", "node"}, "--header, --bearer-env and --oauth-* apply to HTTP servers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runInProcess(tc.args, nil)
			if code != exitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInput, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
		})
	}
}
