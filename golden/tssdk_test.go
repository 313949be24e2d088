package golden

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestTypeScriptSDKv2Eras exports a server built with the TypeScript SDK v2
// (@modelcontextprotocol/server, serveStdio) with --probe-eras, at the
// legacy era where the SDK wraps non-object results. The evidence must say
// so per tool; the IR must recover the natural types from the wrapped
// schemas; and calls described by that IR must return the natural values in
// sessions of either era.
func TestTypeScriptSDKv2Eras(t *testing.T) {
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	node, args := testenv.TSSDKv2Server(t, "")
	out := filepath.Join(t.TempDir(), "bundle.json")
	cmd := exec.Command(mcpbind, append([]string{"export", "--probe-eras", "--protocol-version", "2025-06-18", "--id", "ts", "-o", out, "--", node}, args...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, msg)
	}
	b, err := bundle.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	srv := &b.Servers[0]
	for tool, wraps := range map[string]bool{"list_tags": true, "count": true, "find_row": true, "stats": false} {
		ev, ok := srv.ToolEvidence(tool)
		if !ok || ev.LegacyWraps != wraps || ev.AlwaysWraps {
			t.Errorf("%s: evidence %+v (recorded %v), want legacyWraps=%v", tool, ev, ok, wraps)
		}
	}
	p, err := ir.BuildServer(srv, "ts", ir.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]*ir.Tool{}
	for _, tool := range p.Tools {
		results[tool.Name] = tool
	}
	for name, want := range map[string]string{"list_tags": "[]string", "count": "int64", "stats": "StatsResult"} {
		// zod's integer carries bounds, so count's type is named (to
		// validate) over int64; compare the Go types underneath.
		if got := results[name].Result.Underlying(); got != want && results[name].Result.Name != want {
			t.Errorf("%s: natural result type %s (%s), want %s", name, results[name].ResultGoType(), got, want)
		}
	}
	if !results["find_row"].Wrapped || !results["find_row"].Output.CanBeObject || results["find_row"].Output.PlainObject {
		t.Errorf("find_row: %+v", results["find_row"])
	}

	for _, version := range []string{"2025-06-18", ""} {
		t.Run("session "+cmpOr(version, "newest"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := composition.Connect(ctx, composition.Stdio(node, args...), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			call := func(name string, in, out any) {
				t.Helper()
				tool := bindimpl.Tool{Name: name, Output: bindimpl.Output(results[name].Output)}
				if err := s.Invoke(ctx, &tool, in, out); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			var tags []string
			call("list_tags", nil, &tags)
			var n int64
			call("count", map[string]int{"n": 5}, &n)
			var row, missing map[string]json.RawMessage
			call("find_row", nil, &row)
			call("find_row", map[string]bool{"missing": true}, &missing)
			var stats struct{ Tables, Rows int64 }
			call("stats", nil, &stats)
			if !reflect.DeepEqual(tags, []string{"alpha", "beta", "gamma"}) || n != 5 || string(row["id"]) != "7" ||
				row["result"] != nil || missing != nil || stats.Tables != 3 {
				t.Fatalf("natural values: tags=%v n=%d row=%v missing=%v stats=%+v (session %s)", tags, n, row, missing, stats, s.ProtocolVersion())
			}
		})
	}
	_ = os.Remove(out)
}
