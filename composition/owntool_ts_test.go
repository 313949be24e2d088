package composition_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/owntools"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestOwnToolsThroughTypeScriptSDKs: the own tools of package owntools,
// served over stdio by composition.ServeStdio and over streamable HTTP by
// composition.ListenHTTP, called by the TypeScript SDK clients
// (testservers/ts-client.mjs), which validate each
// structuredContent against the outputSchema they listed:
// @modelcontextprotocol/sdk 1.x at 2025-06-18 gets the non-object results
// wrapped as {"result": v}, @modelcontextprotocol/client 2.x at 2026-07-28
// natural; both get nil lists as [], and refused arguments and a handler's
// error as isError results with our words.
func TestOwnToolsThroughTypeScriptSDKs(t *testing.T) {
	bin := testenv.Build(t, "./testservers/owntools/serve")
	calls := []testenv.Call{
		{Name: "names", Arguments: map[string]any{"prefix": "t"}},
		{Name: "names", Arguments: map[string]any{"prefix": "none"}},
		{Name: "count", Arguments: map[string]any{"table": "abc"}},
		{Name: "report", Arguments: map[string]any{}},
		{Name: "report", Arguments: map[string]any{"tables": []string{"nope"}}},
		{Name: "names", Arguments: map[string]any{}},
	}
	const report = `{"tables":[{"name":"books","columns":[],"raw":null,"extra":{"a":[]},"cells":[],"ptr":{"kids":[]},"tags":{}}]}`
	srv, err := owntools.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	host, err := composition.ListenHTTP(srv, composition.HostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- host.Serve(ctx) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("ListenHTTP: Serve: %v", err)
		}
	}()
	targets := map[string]string{"stdio": bin, "http": host.URL()}
	for _, transport := range []string{"stdio", "http"} {
		for _, tc := range []struct {
			sdk, version string
			wrap         func(string) string
		}{
			{"v1", "2025-06-18", func(v string) string { return `{"result":` + v + `}` }},
			{"v2", "2026-07-28", func(v string) string { return v }},
		} {
			t.Run(transport+"/"+tc.sdk, func(t *testing.T) {
				out := testenv.TSClient(t, tc.sdk, calls, targets[transport])
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
}

// TestOwnToolsExport: own tools export like any server's tools. mcpbind
// export --probe-eras of the owntools server records that names and count
// are wrapped toward 2025 clients and report is not; the IR built from the
// bundle recovers the natural result types ([]string, int64, an object),
// and calls described by it return the natural values in both eras.
func TestOwnToolsExport(t *testing.T) {
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	bin := testenv.Build(t, "./testservers/owntools/serve")
	out := filepath.Join(t.TempDir(), "bundle.json")
	cmd := exec.Command(mcpbind, "export", "--probe-eras", "--id", "own", "-o", out, "--", bin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, msg)
	}
	b, err := bundle.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	srv := &b.Servers[0]
	for tool, wraps := range map[string]bool{"names": true, "count": true, "report": false} {
		if ev, ok := srv.ToolEvidence(tool); !ok || ev.LegacyWraps != wraps || ev.AlwaysWraps {
			t.Errorf("%s: evidence %+v (recorded %v), want legacyWraps=%v", tool, ev, ok, wraps)
		}
	}
	p, err := ir.BuildServer(srv, "own", ir.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*ir.Tool{}
	for _, tool := range p.Tools {
		tools[tool.Name] = tool
	}
	for name, want := range map[string]string{"names": "[]string", "count": "int64", "report": "*ReportResult"} {
		if got := tools[name].ResultGoType(); got != want {
			t.Errorf("%s: natural result type %s, want %s", name, got, want)
		}
	}
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		ctx := context.Background()
		s, err := composition.Connect(ctx, composition.Stdio(bin), composition.WithProtocolVersion(version))
		if err != nil {
			t.Fatal(err)
		}
		call := func(name string, in, out any) {
			t.Helper()
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: name, Output: bindimpl.Output(tools[name].Output)}, in, out); err != nil {
				t.Fatalf("%s at %s: %v", name, version, err)
			}
		}
		var names []string
		call("names", map[string]string{"prefix": "t"}, &names)
		var n int64
		call("count", map[string]string{"table": "abcd"}, &n)
		var rep owntools.Report
		call("report", nil, &rep)
		if !slices.Equal(names, []string{"t1", "t2"}) || n != 4 || len(rep.Tables) != 1 {
			t.Errorf("at %s: names %q, count %d, report %+v", version, names, n, rep)
		}
		_ = s.Close()
	}
}
