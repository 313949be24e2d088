package testenv

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Call is one tools/call of testservers/ts-client.mjs: a tool name and
// its arguments (omitted when nil).
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// SQLiteExplorerCalls are calls of every tool of examples/sqlite-explorer
// on its seeded database, with a tool error (an unknown table), a null
// result and a refused statement among them, for tests that compare what
// clients see from it and from something standing in for it.
func SQLiteExplorerCalls() []Call {
	return []Call{
		{"list_tables", nil},
		{"count_rows", map[string]any{"table": "books"}},
		{"count_rows", map[string]any{"table": "no_such_table"}},
		{"describe_table", map[string]any{"table": "loans"}},
		{"find_row", map[string]any{"table": "authors", "id": 2}},
		{"find_row", map[string]any{"table": "authors", "id": 424242}},
		{"query", map[string]any{"sql": "SELECT id, title FROM books WHERE id < ? ORDER BY id", "params": []any{4}}},
		{"query", map[string]any{"sql": "DELETE FROM books"}},
		{"insert_row", map[string]any{"table": "authors", "values": map[string]any{"name": "Stub Author", "born": 1970}}},
	}
}

// TSClient runs testservers/ts-client.mjs with sdk ("v1":
// @modelcontextprotocol/sdk 1.x at 2025-06-18; "v2":
// @modelcontextprotocol/client 2.x at its newest version) and calls
// against the stdio server command (or the streamable HTTP endpoint when
// command is one http:// or https:// URL), and returns what it prints (one
// JSON object: protocolVersion, tools, results). It fails the test when
// node or the SDKs are missing, or the client fails.
func TSClient(t testing.TB, sdk string, calls []Call, command ...string) []byte {
	t.Helper()
	node := nodeCommand(t, "testservers/ts-client.mjs")
	root := ModuleRoot(t)
	for _, pkg := range []string{"sdk", "client"} {
		if _, err := os.Stat(filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", pkg, "package.json")); err != nil {
			t.Fatalf("testenv: @modelcontextprotocol/%s is missing (%v): %s", pkg, err, npmInstall)
		}
	}
	callsJSON, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(root, "testservers", "ts-client.mjs"), sdk, string(callsJSON), "--"}, command...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts-client.mjs %s %v: %v\n%s\nstderr:\n%s", sdk, command, err, out, stderr.String())
	}
	return out
}
