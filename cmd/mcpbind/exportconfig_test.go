package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// yamlList writes strings as a YAML flow list (JSON strings are valid YAML).
func yamlList(t *testing.T, items ...string) string {
	t.Helper()
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// bundleServers returns the bytes of each server object of a bundle file, by
// id, exactly as they are in the file.
func bundleServers(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	var top struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("bundle: %v", err)
	}
	out := map[string][]byte{}
	for _, raw := range top.Servers {
		var s struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		out[s.ID] = raw
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestExportConfig runs `mcpbind export --config` on real servers:
// sqlite-explorer (mcp-go) and @modelcontextprotocol/server-everything
// (npm), both over stdio, and an mcp-go server over streamable HTTP that
// records the headers it gets, exported concurrently into one bundle.
func TestExportConfig(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	sqlCmd, sqlArgs := testenv.SQLiteExplorerStdio(t)
	node, evArgs := testenv.ServerEverything(t)
	url, lastHeaders := startMCPHTTP(t)
	dir := t.TempDir()

	const (
		varSecret     = "var-s3cr3t-from-env-71" // reaches the server through ${MCPBIND_CFG_SECRET}
		literalSecret = "literal-s3cr3t-in-config-93"
	)
	env := []string{"MCPBIND_CFG_SECRET=" + varSecret}
	servers := `servers:
  sqlite:
    command: ` + yamlList(t, append([]string{sqlCmd}, sqlArgs...)...) + `
    env:
      MCPBIND_TEST_SECRET: "${MCPBIND_CFG_SECRET}"
      MCPBIND_OTHER: ` + literalSecret + `
  everything:
    command: ` + yamlList(t, node) + `
    args: ` + yamlList(t, evArgs...) + `
    timeout: 2m
  remote:
    url: ` + url + `
    headers:
      X-Api-Key: "${MCPBIND_CFG_SECRET}"
      Authorization: Bearer ` + literalSecret + `
`
	config := filepath.Join(dir, "servers.yaml")
	if err := os.WriteFile(config, []byte(servers), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bundle.json")

	r := runBinary(t, bin, env, "export", "--config", config, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	data := readFile(t, out)
	b, err := bundle.Parse(data, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Servers) != 3 || b.Servers[0].ID != "everything" || b.Servers[1].ID != "remote" || b.Servers[2].ID != "sqlite" {
		t.Fatalf("servers %+v", b.Servers)
	}
	ev, remote, sq := b.Servers[0], b.Servers[1], b.Servers[2]
	if sq.ProtocolVersion != "2026-07-28" || len(ev.Tools) < 5 || len(sq.Tools) < 5 || len(remote.Tools) != 1 || remote.Transport != bundle.TransportStreamableHTTP {
		t.Errorf("everything %s (%d tools), sqlite %s (%d tools), remote %s (%d tools)",
			ev.ProtocolVersion, len(ev.Tools), sq.ProtocolVersion, len(sq.Tools), remote.Transport, len(remote.Tools))
	}
	if h := lastHeaders(); h.Get("X-Api-Key") != varSecret || h.Get("Authorization") != "Bearer "+literalSecret {
		t.Errorf("the HTTP server got the headers %v", h)
	}
	for _, leak := range []string{varSecret, literalSecret, "MCPBIND_CFG_SECRET", "MCPBIND_TEST_SECRET", "X-Api-Key", "127.0.0.1", sqlCmd, node, "servers.yaml"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("the bundle holds %q", leak)
		}
	}
	for _, want := range []string{"mcpbind: [sqlite] connecting to ", "mcpbind: [everything] connected: protocol ", "mcpbind: [sqlite] exported ", "mcpbind: [remote] exported ", "mcpbind: exported 3 servers (everything, remote, sqlite) in " + out} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, varSecret) || strings.Contains(r.stderr, literalSecret) {
		t.Errorf("stderr shows a secret:\n%s", r.stderr)
	}

	t.Run("quiet and deterministic", func(t *testing.T) {
		r := runBinary(t, bin, env, "export", "--config", config, "--quiet")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if r.stdout != string(data) {
			t.Error("a second export to stdout gave other bytes")
		}
	})

	t.Run("append leaves the other servers byte for byte", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bundle.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Replace sqlite with its legacy-era export: its schemas change
		// (count_rows is wrapped), everything's bytes must not.
		r := runBinary(t, bin, env, "export", "--config", config, "--append", "--id", "sqlite", "--protocol-version", "2025-06-18", "-o", path)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "mcpbind: updated 1 server (sqlite) in "+path) || strings.Contains(r.stderr, "[everything]") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		legacy := readFile(t, path)
		before, after := bundleServers(t, data), bundleServers(t, legacy)
		if !bytes.Equal(before["everything"], after["everything"]) {
			t.Error("--append changed the bytes of server everything")
		}
		if bytes.Equal(before["sqlite"], after["sqlite"]) || !bytes.Contains(after["sqlite"], []byte(`"protocolVersion": "2025-06-18"`)) {
			t.Error("--append did not replace server sqlite")
		}
		if !bytes.HasPrefix(legacy, data[:bytes.Index(data, before["sqlite"])]) {
			t.Error("the bytes before server sqlite changed")
		}

		// Appending the newest-era export again restores the file exactly,
		// from the config and from the command line alike.
		r = runBinary(t, bin, env, "export", "--config", config, "--append", "--id", "sqlite", "-q", "-o", path)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		if !bytes.Equal(readFile(t, path), data) {
			t.Error("re-appending sqlite did not give back the original bytes")
		}
		r = runBinary(t, bin, nil, append([]string{"export", "--append", "--id", "sqlite", "--protocol-version", "2025-06-18", "-o", path, "--", sqlCmd}, sqlArgs...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		if !bytes.Equal(readFile(t, path), legacy) {
			t.Error("--append from the command line gave other bytes than from the config")
		}
	})

	t.Run("a failing server", func(t *testing.T) {
		broken := filepath.Join(t.TempDir(), "servers.yaml")
		if err := os.WriteFile(broken, []byte(servers+"  broken:\n    command: /nonexistent/mcp-server\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "bundle.json")
		const previous = "previous content\n"
		if err := os.WriteFile(path, []byte(previous), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, bin, env, "export", "--config", broken, "-o", path)
		if r.code != exitServer {
			t.Errorf("exit %d, want %d", r.code, exitServer)
		}
		for _, want := range []string{"mcpbind: [sqlite] exported ", "mcpbind: [everything] exported ",
			"mcpbind: [broken] failed: ", "/nonexistent/mcp-server", "no such file or directory",
			"1 of 4 servers failed (broken); nothing was written; " + path + " is unchanged"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if got := string(readFile(t, path)); got != previous {
			t.Errorf("the earlier file changed: %q", got)
		}

		// --partial writes the two that worked, and still fails.
		r = runBinary(t, bin, env, "export", "--config", broken, "--partial", "-o", path)
		if r.code != exitServer || !strings.Contains(r.stderr, "1 of 4 servers failed (broken); wrote the others (--partial)") {
			t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		if got := readFile(t, path); !bytes.Equal(got, data) {
			t.Errorf("--partial wrote:\n%s", got)
		}
	})

	t.Run("input errors", func(t *testing.T) {
		tmp := t.TempDir()
		syntax := filepath.Join(tmp, "syntax.yaml")
		if err := os.WriteFile(syntax, []byte("servers:\n  a:\n    command: [x, y\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		existing := filepath.Join(tmp, "bundle.json")
		if err := os.WriteFile(existing, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			env  []string
			args []string
			want string
		}{
			{"syntax error", env, []string{"--config", syntax}, syntax + ":3:14: sequence end token ']' not found"},
			{"missing config", env, []string{"--config", filepath.Join(tmp, "none.yaml")}, "none.yaml: cannot read the servers config: no such file or directory"},
			{"unset variable", nil, []string{"--config", config}, `servers.yaml:5:28: server "sqlite": env.MCPBIND_TEST_SECRET: environment variable MCPBIND_CFG_SECRET is not set`},
			{"unknown id", env, []string{"--config", config, "--id", "nope", "-o", existing}, `no server "nope" is configured (configured: everything, remote, sqlite)`},
			{"unknown id with --append", env, []string{"--config", config, "--append", "--id", "nope", "-o", existing}, `no server "nope" is configured`},
			{"append without -o", env, []string{"--config", config, "--append"}, "--append needs -o FILE"},
			{"append to a missing file", env, []string{"--config", config, "--append", "-o", filepath.Join(tmp, "new.json")}, "new.json does not exist; export without --append to create it"},
			{"append to a file that is not a bundle", env, []string{"--config", config, "--append", "-o", syntax}, "syntax.yaml:1:1: invalid character"},
			{"config and a server", env, []string{"--config", config, "--", sqlCmd}, "--config names the servers; give no server command or URL with it"},
			{"config and --header", env, []string{"--config", config, "--header", "A: b"}, "--header, --bearer-env and --env do not apply with --config"},
			{"partial without config", env, []string{"--partial", "--", sqlCmd}, "--partial applies to --config"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := runBinary(t, bin, tc.env, append([]string{"export"}, tc.args...)...)
				if r.code != exitInput {
					t.Errorf("exit %d, want %d", r.code, exitInput)
				}
				if !strings.Contains(r.stderr, tc.want) {
					t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
				}
				if strings.Contains(r.stderr, "connecting") || r.stdout != "" {
					t.Errorf("a server was started or something written:\nstdout %q\nstderr %s", r.stdout, r.stderr)
				}
			})
		}
		if !bytes.Equal(readFile(t, existing), data) {
			t.Error("the bundle changed")
		}
	})
}

// TestExportConfigProbeErasAndStrict: --probe-eras and --strict apply to
// every server of a config: sqlite-explorer gets envelope evidence, and a
// server with a schema finding makes --strict write nothing (exit 2).
func TestExportConfigProbeErasAndStrict(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	sqlCmd, sqlArgs := testenv.SQLiteExplorerStdio(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.yaml")
	write := func(s string) {
		if err := os.WriteFile(config, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("servers:\n  sqlite:\n    command: " + yamlList(t, append([]string{sqlCmd}, sqlArgs...)...) + "\n")
	out := filepath.Join(dir, "bundle.json")
	if r := runBinary(t, bin, nil, "export", "--config", config, "--probe-eras", "-o", out); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := bundle.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := b.Servers[0].ToolEvidence("count_rows"); !ok || !ev.LegacyWraps || len(ev.ProbedVersions) != 2 {
		t.Fatalf("count_rows evidence %+v (%v)", ev, ok)
	}

	write("servers:\n  odd:\n    command: " + yamlList(t, self) + "\n    env: {" + fakeServerEnv + ": odd}\n")
	strictOut := filepath.Join(dir, "strict.json")
	r := runBinary(t, bin, nil, "export", "--config", config, "--strict", "-o", strictOut)
	if r.code != exitInput || !strings.Contains(r.stderr, "--strict writes no bundle") {
		t.Fatalf("--strict: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
		t.Fatalf("--strict wrote %s", strictOut)
	}
}
