package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestCall runs `mcpbind call` against real servers: sqlite-explorer over
// stdio and streamable HTTP, in both protocol eras, and
// @modelcontextprotocol/server-everything over stdio.
func TestCall(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	sqlCmd, sqlArgs := testenv.SQLiteExplorerStdio(t)
	stdio := append([]string{"--", sqlCmd}, sqlArgs...)
	call := func(t *testing.T, args ...string) result {
		t.Helper()
		return runBinary(t, bin, nil, append([]string{"call"}, args...)...)
	}
	ok := func(t *testing.T, args ...string) string {
		t.Helper()
		r := call(t, args...)
		if r.code != 0 {
			t.Fatalf("mcpbind call %q: exit %d\nstderr:\n%s", args, r.code, r.stderr)
		}
		return r.stdout
	}
	legacy := []string{"--protocol-version", "2025-06-18"}

	t.Run("array result, unwrapped in a legacy session", func(t *testing.T) {
		const want = "[\n  \"authors\",\n  \"books\",\n  \"loans\"\n]\n"
		if got := ok(t, append([]string{"list_tables"}, stdio...)...); got != want {
			t.Errorf("2026-07-28 session printed %q, want %q", got, want)
		}
		r := call(t, append(append([]string{"-v", "list_tables"}, legacy...), stdio...)...)
		if r.code != 0 || r.stdout != want {
			t.Errorf("2025-06-18 session: exit %d, printed %q, want %q\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
		}
		if !strings.Contains(r.stderr, "connected: protocol 2025-06-18") || !strings.Contains(r.stderr, `unwrapped the {"result": v} envelope`) {
			t.Errorf("stderr:\n%s", r.stderr)
		}
	})

	t.Run("integer result in both eras", func(t *testing.T) {
		args := []string{"count_rows", "--args", `{"table":"books"}`}
		modern := ok(t, append(args, stdio...)...)
		old := ok(t, append(append(args, legacy...), stdio...)...)
		if n, err := strconv.Atoi(strings.TrimSpace(modern)); err != nil || n <= 0 || old != modern {
			t.Errorf("printed %q (2026-07-28) and %q (2025-06-18)", modern, old)
		}
	})

	t.Run("object result in both eras", func(t *testing.T) {
		args := []string{"query", "--args", `{"sql":"SELECT id, title FROM books ORDER BY id LIMIT 2"}`}
		modern := ok(t, append(args, stdio...)...)
		old := ok(t, append(append(args, legacy...), stdio...)...)
		if !strings.HasPrefix(modern, "{\n  \"columns\": [") || old != modern {
			t.Errorf("printed\n%s(2026-07-28) and\n%s(2025-06-18)", modern, old)
		}
	})

	t.Run("object result over HTTP", func(t *testing.T) {
		url := testenv.SQLiteExplorerHTTP(t)
		out := ok(t, "query", "--args", `{"sql":"SELECT id, title FROM books ORDER BY id LIMIT 2"}`, url)
		var res struct {
			Columns  []string `json:"columns"`
			Rows     [][]any  `json:"rows"`
			RowCount int      `json:"row_count"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if strings.Join(res.Columns, ",") != "id,title" || res.RowCount != 2 || len(res.Rows) != 2 {
			t.Errorf("printed %s", out)
		}
		if !strings.HasPrefix(out, "{\n  \"columns\": [\n    \"id\",") {
			t.Errorf("not indented JSON in the server's key order:\n%s", out)
		}
		if got := ok(t, append([]string{"list_tables"}, append(legacy, url)...)...); !strings.Contains(got, `"books"`) || strings.Contains(got, "result") {
			t.Errorf("legacy HTTP list_tables printed %q", got)
		}
	})

	t.Run("null result", func(t *testing.T) {
		for _, era := range [][]string{nil, legacy} {
			if got := ok(t, append(append([]string{"find_row", "--args", `{"table":"books","id":999999}`}, era...), stdio...)...); got != "null\n" {
				t.Errorf("%v: printed %q", era, got)
			}
		}
	})

	t.Run("isError exits 3 with the text on stderr", func(t *testing.T) {
		r := call(t, append([]string{"count_rows", "--args", `{"table":"nope"}`}, stdio...)...)
		if r.code != exitServer || r.stdout != "" || !strings.Contains(r.stderr, `tool "count_rows" reported an error: unknown table "nope"`) {
			t.Errorf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("unknown tool exits 3", func(t *testing.T) {
		r := call(t, append([]string{"no_such_tool"}, stdio...)...)
		if r.code != exitServer || !strings.Contains(r.stderr, `calling tool "no_such_tool"`) {
			t.Errorf("exit %d\nstderr %s", r.code, r.stderr)
		}
	})

	t.Run("list", func(t *testing.T) {
		out := ok(t, append([]string{"--list"}, stdio...)...)
		if !strings.Contains(out, "count_rows      Count the rows of a table.\n") || strings.Count(out, "\n") != 6 {
			t.Errorf("printed:\n%s", out)
		}
	})

	t.Run("server-everything: text and structured results", func(t *testing.T) {
		node, args := testenv.ServerEverything(t)
		server := append([]string{"--", node}, args...)
		if got := ok(t, append([]string{"echo", "--args", `{"message":"hello, mcpbind"}`}, server...)...); got != "Echo: hello, mcpbind\n" {
			t.Errorf("echo printed %q", got)
		}
		out := ok(t, append([]string{"get-structured-content", "--args", `{"location":"New York"}`}, server...)...)
		var weather map[string]any
		if err := json.Unmarshal([]byte(out), &weather); err != nil || weather["temperature"] == nil {
			t.Errorf("get-structured-content printed %q (%v)", out, err)
		}
		out = ok(t, append([]string{"get-tiny-image"}, server...)...)
		if !strings.Contains(out, "\"type\": \"image\"") || !strings.Contains(out, "\"mimeType\": \"image/png\"") {
			t.Errorf("get-tiny-image printed %q", out)
		}
	})
}

// TestCallUsage checks call's usage errors: exit 2, nothing started.
func TestCallUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"nothing", []string{"call"}, "missing the tool name"},
		{"no server", []string{"call", "t"}, "missing the server"},
		{"list without server", []string{"call", "--list"}, "missing the server"},
		{"too many", []string{"call", "t", "http://127.0.0.1:1/mcp", "x"}, "too many arguments"},
		{"list and a tool", []string{"call", "--list", "t", "http://127.0.0.1:1/mcp"}, "too many arguments"},
		{"two before --", []string{"call", "t", "u", "--", "node"}, `unexpected argument "u" before --`},
		{"no tool before --", []string{"call", "--", "node"}, "missing the tool name"},
		{"nothing after --", []string{"call", "t", "--"}, "missing the server command after --"},
		{"not a URL", []string{"call", "t", "server.js"}, `"server.js" is not an http or https URL`},
		{"args not JSON", []string{"call", "t", "--args", "{table: books}", "--", "node"}, "--args is not valid JSON"},
		{"args an array", []string{"call", "t", "--args", `["books"]`, "--", "node"}, "--args must be a JSON object"},
		{"args two values", []string{"call", "t", "--args", `{} {}`, "--", "node"}, "--args holds more than one JSON value"},
		{"args with list", []string{"call", "--list", "--args", `{}`, "--", "node"}, "--args applies to a tool call"},
		{"env for HTTP", []string{"call", "t", "--env", "A=b", "http://127.0.0.1:1/mcp"}, "--env applies to stdio servers"},
		{"bad protocol version", []string{"call", "t", "--protocol-version", "1999-01-01", "--", "mcpbind-no-such-server-4711"}, `unknown protocol version "1999-01-01"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runInProcess(tc.args, nil)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

func TestEnvelopeOutput(t *testing.T) {
	cases := []struct {
		name, schema string
		wrapper      bool
	}{
		{"wrapped array", `{"type":"object","properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}`, true},
		{"wrapped integer, no type", `{"properties":{"result":{"type":"integer"}},"required":["result"]}`, true},
		{"wrapped nullable object", `{"type":"object","properties":{"result":{"type":["object","null"]}},"required":["result"]}`, true},
		{"wrapped union", `{"type":"object","properties":{"result":{"anyOf":[{"type":"object"},{"type":"string"}]}},"required":["result"]}`, true},
		{"wrapped $ref to an array", `{"type":"object","properties":{"result":{"$ref":"#/$defs/L"}},"required":["result"],"$defs":{"L":{"type":"array"}}}`, true},
		{"fastmcp", `{"type":"object","properties":{"result":{"type":"object"}},"x-fastmcp-wrap-result":true}`, true},
		{"plain object result", `{"type":"object","properties":{"result":{"type":"object","properties":{"a":{}}}},"required":["result"]}`, false},
		{"$ref to a plain object", `{"type":"object","properties":{"result":{"$ref":"#/$defs/O"}},"required":["result"],"$defs":{"O":{"type":"object"}}}`, false},
		{"result not required", `{"type":"object","properties":{"result":{"type":"integer"}}}`, false},
		{"two properties", `{"type":"object","properties":{"result":{"type":"integer"},"more":{}},"required":["result"]}`, false},
		{"not an object schema", `{"type":"array"}`, false},
		{"no schema", ``, false},
		{"boolean schema", `true`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := envelopeOutput(json.RawMessage(tc.schema))
			if ok != tc.wrapper {
				t.Fatalf("recognised %v, want %v", ok, tc.wrapper)
			}
			if !ok {
				return
			}
			// Recognised in this very session: unwrapped in either era.
			for _, v := range []string{"2025-06-18", composition.ModernProtocolVersion} {
				got, unwrapped := bindimpl.Unwrap(v, o, json.RawMessage(`{"result":[1,2]}`))
				if !unwrapped || string(got) != "[1,2]" {
					t.Errorf("%s: Unwrap gave %s, %v", v, got, unwrapped)
				}
			}
		})
	}
}
