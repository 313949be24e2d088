package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// writeFile writes data to name in dir and returns the path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// oneServerBundle is a bundle with one server "s" and the given tools.
func oneServerBundle(tools string) string {
	return `{"bundleVersion":1,"servers":[{"id":"s","serverInfo":{"name":"s"},"protocolVersion":"2026-07-28","transport":"stdio","tools":[` + tools + `]}]}`
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	clean := writeFile(t, dir, "clean.json", oneServerBundle(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}},"outputSchema":{"type":"array"}}`))
	bad := writeFile(t, dir, "bad.json", oneServerBundle(
		`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"strng"}}}},`+
			`{"name":"u","inputSchema":true,"outputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","required":"a"}}`))

	// A bundle whose digests were recorded, then whose tool was edited.
	b, err := bundle.Parse([]byte(oneServerBundle(`{"name":"t","inputSchema":{"type":"object"}}`)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Servers[0].RecordDigests(); err != nil {
		t.Fatal(err)
	}
	recorded, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	withDigests := writeFile(t, dir, "digests.json", string(recorded))
	edited := writeFile(t, dir, "edited.json", strings.Replace(string(recorded), `"type": "object"`, `"type": "object", "properties": {}`, 1))

	cases := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings of stdout
		stderr     []string // substrings of stderr
		stdoutNone bool     // stdout must be empty
	}{
		{"clean", []string{clean}, exitOK, nil, []string{"mcpbind: " + clean + ": valid (1 server, 1 tool)"}, true},
		{"digests match", []string{withDigests}, exitOK, nil, []string{"valid"}, true},
		{"findings", []string{bad}, exitInput, []string{
			bad + `: server "s", tool "t", inputSchema#/properties/a/type: value must be one of`,
			bad + `: server "s", tool "u", inputSchema: the root must be an object schema with "type": "object"`,
			bad + `: server "s", tool "u", outputSchema#/required: got string, want array (meta-schema draft-07)`,
		}, []string{"mcpbind: 3 findings"}, false},
		{"edited after export", []string{edited}, exitInput, []string{
			edited + `: server "s", tool "t", x-mcpbind: recorded digest sha256:`,
			edited + `: server "s", x-mcpbind: recorded server digest`,
		}, []string{"2 findings"}, false},
		{"PMCP CLI export", []string{filepath.Join("..", "..", "bundle", "testdata", "pmcp-cli-export.json")}, exitOK, nil,
			[]string{"mcpbind: read PMCP CLI export ", "valid (1 server, 2 tools)"}, true},
		{"PMCP export", []string{filepath.Join("..", "..", "bundle", "testdata", "pmcp-export.json")}, exitOK, nil,
			[]string{"mcpbind: read PMCP export "}, true},
		{"missing file", []string{filepath.Join(dir, "nope.json")}, exitInput, nil,
			[]string{"nope.json: cannot read bundle: no such file or directory"}, true},
		{"not JSON", []string{writeFile(t, dir, "text.json", "hello\n")}, exitInput, nil,
			[]string{"text.json:1:1: invalid character 'h'"}, true},
		{"wrong format", []string{writeFile(t, dir, "array.json", "[1, 2]\n")}, exitInput, nil,
			[]string{"array.json: got array, want object"}, true},
		{"not a bundle", []string{writeFile(t, dir, "other.json", `{"name":"x","tools":[]}`)}, exitInput, nil,
			[]string{"other.json: missing properties 'bundleVersion', 'servers'"}, true},
		{"a folder", []string{dir}, exitInput, nil, []string{"cannot read bundle"}, true},
		{"several, one missing", []string{clean, filepath.Join(dir, "nope.json"), bad}, exitInput,
			[]string{bad + `: server "s"`}, []string{"valid", "nope.json: cannot read bundle", "3 findings, 1 file not read"}, false},
		{"no file", []string{}, exitInput, nil, []string{"validate: missing the bundle file", "--help"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runInProcess(append([]string{"validate"}, tc.args...), nil)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if tc.stdoutNone && stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestExportChecksAndProbe runs the mcpbind binary: --probe-eras against
// sqlite-explorer (the written bundle carries the evidence and validates
// clean), and the schema checks against a server whose inputSchema is the
// boolean schema true (a warning; with --strict an error and no file).
func TestExportChecksAndProbe(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")

	t.Run("probe-eras", func(t *testing.T) {
		command, args := testenv.SQLiteExplorerStdio(t)
		out := filepath.Join(t.TempDir(), "bundle.json")
		r := runBinary(t, bin, nil, append([]string{"export", "--probe-eras", "-o", out, "--", command}, args...)...)
		if r.code != 0 || strings.Contains(r.stderr, "warning") {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		srv := parseOne(t, data)
		var facts struct {
			Digest string `json:"digest"`
			Tools  map[string]struct {
				Digest   string `json:"digest"`
				Envelope *struct {
					LegacyWraps    bool     `json:"legacyWraps"`
					ProbedVersions []string `json:"probedVersions"`
				} `json:"envelope"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(srv.Extensions, &facts); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(facts.Digest, "sha256:") || len(facts.Tools) != len(srv.Tools) {
			t.Errorf("x-mcpbind %s", srv.Extensions)
		}
		for name, wraps := range map[string]bool{"list_tables": true, "count_rows": true, "find_row": true, "query": false} {
			ev := facts.Tools[name].Envelope
			if ev == nil || ev.LegacyWraps != wraps || strings.Join(ev.ProbedVersions, ",") != "2025-11-25,2026-07-28" {
				t.Errorf("%s: %+v", name, ev)
			}
		}
		if !strings.Contains(string(data), "\n      \"x-mcpbind\": {\n        \"digest\": \"sha256:") {
			t.Errorf("x-mcpbind is not laid out as the rest of the bundle:\n%s", data)
		}
		if r := runBinary(t, bin, nil, "validate", out); r.code != 0 || r.stdout != "" {
			t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// Without --probe-eras: digests, no envelope evidence.
		r = runBinary(t, bin, nil, append([]string{"export", "--", command}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, `"digest": "sha256:`) || strings.Contains(r.stdout, "envelope") {
			t.Errorf("exit %d; bundle:\n%s", r.code, r.stdout)
		}
	})

	t.Run("probe-eras, legacy-only server", func(t *testing.T) {
		node, args := testenv.ServerEverything(t)
		r := runBinary(t, bin, nil, append([]string{"export", "--probe-eras", "--", node}, args...)...)
		if r.code != 0 || !strings.Contains(r.stderr, "mcpbind: warning: "+node+": --probe-eras:") ||
			!strings.Contains(r.stderr, "speaks the legacy era only (it negotiated") {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})

	t.Run("schema findings", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		const finding = `server "odd", tool "bool_root", inputSchema: the root must be an object schema with "type": "object", as MCP requires; got the boolean true`
		dir := t.TempDir()
		out := filepath.Join(dir, "b.json")
		r := runBinary(t, bin, nil, "export", "-o", out, "--env", fakeServerEnv+"=odd", "--id", "odd", "--", self)
		if r.code != 0 || !strings.Contains(r.stderr, "mcpbind: warning: "+finding) {
			t.Errorf("without --strict: exit %d\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("without --strict, no bundle: %v", err)
		}
		strictOut := filepath.Join(dir, "strict.json")
		r = runBinary(t, bin, nil, "export", "--strict", "-o", strictOut, "--env", fakeServerEnv+"=odd", "--id", "odd", "--", self)
		if r.code != exitInput || !strings.Contains(r.stderr, "mcpbind: error: "+finding) ||
			!strings.Contains(r.stderr, `server "odd": 1 schema problem; --strict writes no bundle`) || r.stdout != "" {
			t.Errorf("--strict: exit %d\nstdout %q\n%s", r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
			t.Errorf("--strict wrote a bundle: %v", err)
		}
	})
}
