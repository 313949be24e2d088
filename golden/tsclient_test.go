package golden

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// tsClientRun is what testservers/ts-client.mjs prints.
type tsClientRun struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Tools           []json.RawMessage `json:"tools"`
	Results         []struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Thrown            string          `json:"thrown"`
	} `json:"results"`
	raw map[string]any
}

// runTSClient runs testservers/ts-client.mjs with sdk ("v1" or "v2") and
// stubCalls against the stdio server command, and decodes its output.
func runTSClient(t *testing.T, sdk string, command ...string) tsClientRun {
	t.Helper()
	out := testenv.TSClient(t, sdk, stubCalls, command...)
	var run tsClientRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("ts-client.mjs output: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, &run.raw); err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != len(stubCalls) {
		t.Fatalf("ts-client.mjs made %d calls, want %d", len(run.Results), len(stubCalls))
	}
	return run
}

// TestServerStubThroughTypeScriptSDKs: TypeScript SDK clients see the same
// tools and results from the generated stub as from the real
// sqlite-explorer, tool by tool — @modelcontextprotocol/sdk 1.x at
// 2025-06-18 with list_tables, count_rows and find_row wrapped as
// {"result": v} (which the SDK validates against the wrapped outputSchema),
// @modelcontextprotocol/client 2.x at its newest version, 2026-07-28, with
// natural values (SEP-2106).
func TestServerStubThroughTypeScriptSDKs(t *testing.T) {
	stubThroughTypeScriptSDKs(t)
}

// TestGoSDKStubThroughTypeScriptSDKs is TestServerStubThroughTypeScriptSDKs
// for the stub generated with --sdk go-sdk (golden/sqlite-explorer-gosdk),
// served on a go-sdk server over the same store (sqlite-stub --sdk go-sdk):
// the same listings and results as the real server in both eras.
func TestGoSDKStubThroughTypeScriptSDKs(t *testing.T) {
	stubThroughTypeScriptSDKs(t, "--sdk", "go-sdk")
}

// stubThroughTypeScriptSDKs compares sqlite-stub, started with stubArgs,
// with the real sqlite-explorer through both TypeScript SDKs.
func stubThroughTypeScriptSDKs(t *testing.T, stubArgs ...string) {
	real := testenv.Build(t, "./examples/sqlite-explorer")
	stub := testenv.Build(t, "./testservers/sqlitestub/cmd/sqlite-stub")
	wrappedTools := map[string]bool{"list_tables": true, "count_rows": true, "find_row": true}
	for _, tc := range []struct{ sdk, version string }{{"v1", "2025-06-18"}, {"v2", "2026-07-28"}} {
		t.Run(tc.sdk+" at "+tc.version, func(t *testing.T) {
			want := runTSClient(t, tc.sdk, real, "--dir", t.TempDir())
			got := runTSClient(t, tc.sdk, append([]string{stub, "--dir", t.TempDir()}, stubArgs...)...)
			if got.ProtocolVersion != tc.version || want.ProtocolVersion != tc.version {
				t.Fatalf("negotiated %q with the stub and %q with the real server, want %s", got.ProtocolVersion, want.ProtocolVersion, tc.version)
			}
			if !reflect.DeepEqual(got.raw["tools"], want.raw["tools"]) {
				t.Errorf("tools/list differs:\n real %s\n stub %s", want.Tools, got.Tools)
			}
			for i, c := range stubCalls {
				g, w := got.raw["results"].([]any)[i], want.raw["results"].([]any)[i]
				if !reflect.DeepEqual(g, w) {
					gj, _ := json.Marshal(g)
					wj, _ := json.Marshal(w)
					t.Errorf("%s %v differs:\n real %s\n stub %s", c.Name, c.Arguments, wj, gj)
				}
				r := got.Results[i]
				if r.Thrown != "" {
					t.Errorf("%s %v: the SDK threw %q", c.Name, c.Arguments, r.Thrown)
					continue
				}
				if r.IsError || !wrappedTools[c.Name] {
					continue
				}
				var sc map[string]json.RawMessage
				wrapped := json.Unmarshal(r.StructuredContent, &sc) == nil && len(sc) == 1 && sc["result"] != nil
				if wrapped != (tc.version < "2026-07-28") {
					t.Errorf("%s %v at %s: structuredContent %s (wrapped: %v)", c.Name, c.Arguments, tc.version, r.StructuredContent, wrapped)
				}
			}
		})
	}
}
