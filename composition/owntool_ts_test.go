package composition_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbind/mcpbind/internal/testenv"
)

// TestOwnToolsThroughTypeScriptSDKs: the own tools of package owntools,
// served over stdio by composition.ServeStdio, called by the TypeScript
// SDK clients (testservers/ts-client.mjs), which validate each
// structuredContent against the outputSchema they listed:
// @modelcontextprotocol/sdk 1.x at 2025-06-18 gets the non-object results
// wrapped as {"result": v}, @modelcontextprotocol/client 2.x at 2026-07-28
// natural; both get nil lists as [], and refused arguments and a handler's
// error as isError results with our words.
func TestOwnToolsThroughTypeScriptSDKs(t *testing.T) {
	bin := testenv.Build(t, "./composition/internal/owntools/serve")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("the TypeScript SDK clients need node, which is missing from PATH: install Node.js 20 or later, then run `npm ci --prefix testservers`")
	}
	root := testenv.ModuleRoot(t)
	for _, pkg := range []string{"sdk", "client"} {
		if _, err := os.Stat(filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", pkg, "package.json")); err != nil {
			t.Fatalf("@modelcontextprotocol/%s is missing (%v): run `npm ci --prefix testservers`", pkg, err)
		}
	}
	type call struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	calls := []call{
		{"names", map[string]any{"prefix": "t"}},
		{"names", map[string]any{"prefix": "none"}},
		{"count", map[string]any{"table": "abc"}},
		{"report", map[string]any{}},
		{"report", map[string]any{"tables": []string{"nope"}}},
		{"names", map[string]any{}},
	}
	callsJSON, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	const report = `{"tables":[{"name":"books","columns":[],"raw":null,"extra":{"a":[]},"cells":[],"ptr":{"kids":[]},"tags":{}}]}`
	for _, tc := range []struct {
		sdk, version string
		wrap         func(string) string
	}{
		{"v1", "2025-06-18", func(v string) string { return `{"result":` + v + `}` }},
		{"v2", "2026-07-28", func(v string) string { return v }},
	} {
		t.Run(tc.sdk, func(t *testing.T) {
			cmd := exec.Command(node, filepath.Join(root, "testservers", "ts-client.mjs"), tc.sdk, string(callsJSON), "--", bin)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("ts-client.mjs %s: %v\n%s", tc.sdk, err, out)
			}
			var run struct {
				ProtocolVersion string `json:"protocolVersion"`
				Results         []struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
					IsError           bool            `json:"isError"`
					Content           []struct {
						Text string `json:"text"`
					} `json:"content"`
					Thrown string `json:"thrown"`
				} `json:"results"`
			}
			if err := json.Unmarshal(out, &run); err != nil {
				t.Fatalf("ts-client.mjs output: %v\n%s", err, out)
			}
			if run.ProtocolVersion != tc.version || len(run.Results) != len(calls) {
				t.Fatalf("negotiated %q and made %d calls, want %s and %d\n%s", run.ProtocolVersion, len(run.Results), tc.version, len(calls), out)
			}
			want := []string{tc.wrap(`["t1","t2"]`), tc.wrap(`[]`), tc.wrap(`3`), report}
			for i, w := range want {
				r := run.Results[i]
				if r.Thrown != "" || r.IsError || string(r.StructuredContent) != w {
					t.Errorf("%s %v: got %s (isError %v, thrown %q), want %s", calls[i].Name, calls[i].Arguments, r.StructuredContent, r.IsError, r.Thrown, w)
				}
			}
			for i, w := range map[int]string{
				4: `no table "nope"`,
				5: `invalid arguments for tool "names" at /: missing property 'prefix'`,
			} {
				r := run.Results[i]
				if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != w {
					t.Errorf("%s %v: got %+v, want the tool error %q", calls[i].Name, calls[i].Arguments, r, w)
				}
			}
		})
	}
}
