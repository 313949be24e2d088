package golden

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/ir"
)

// TestServeListsEveryGoldenTool serves every tool of every golden bundle
// and every bundle of the examples (server-memory, insights, …) with
// composition.Serve, described as the generated server.go describes it
// (the IR's descriptor and the tool object as the bundle holds it), and
// lists them in a session of the bundle's own era: each tool must come back
// as the bundle holds it — icons, execution, _meta, titles, annotations and
// both schemas — except that mcp-go lists "annotations": {} for a tool
// without annotations (mcp.Tool always marshals them), and that a bundle
// exported before 2026-07-28 from a server that did not wrap (hostile) has
// its non-object output schemas listed wrapped, as older clients require.
func TestServeListsEveryGoldenTool(t *testing.T) {
	matches, err := filepath.Glob("*/bundle.json")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no golden bundles: %v", err)
	}
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	matches = append(matches, examples...)
	for _, m := range matches {
		b, err := bundle.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Servers {
			srv := &b.Servers[i]
			t.Run(strings.TrimPrefix(filepath.ToSlash(m), "../")+"/"+srv.ID, func(t *testing.T) {
				p, err := ir.BuildServer(srv, "x", ir.DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				docs := map[string]string{}
				for _, d := range p.Schemas {
					docs[d.Key] = d.JSON
				}
				schemas := composition.NewSchemaSet(docs)
				var served []composition.ServedTool
				for _, tool := range p.Tools {
					desc := composition.Tool{Name: tool.Name, Output: composition.Output(tool.Output), Schemas: schemas,
						InputDoc: tool.InputDoc, OutputDoc: tool.OutputDoc, ResultPointer: tool.NaturalPointer}
					served = append(served, composition.HandleNoArgs(desc, string(tool.Raw), func(context.Context) (any, error) { return nil, nil }))
				}
				s := server.NewMCPServer(srv.ID, "0", server.WithToolCapabilities(false))
				if err := composition.Serve(s, served); err != nil {
					t.Fatal(err)
				}
				version := srv.ProtocolVersion
				if version >= composition.ModernProtocolVersion {
					version = "" // the newest: 2026-07-28
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				sess, err := composition.Connect(ctx, composition.InProcess(s), composition.WithProtocolVersion(version))
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				listed, err := sess.ListToolsRaw(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(listed) != len(srv.Tools) {
					t.Fatalf("listed %d tools, the bundle has %d", len(listed), len(srv.Tools))
				}
				wrapped := 0
				for j, raw := range listed {
					var got, want map[string]any
					if err := json.Unmarshal(raw, &got); err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(srv.Tools[j].Raw, &want); err != nil {
						t.Fatal(err)
					}
					if _, ok := want["annotations"]; !ok && reflect.DeepEqual(got["annotations"], map[string]any{}) {
						delete(got, "annotations")
					}
					if version != "" && want["outputSchema"] != nil && reflect.DeepEqual(got["outputSchema"], map[string]any{
						"type": "object", "properties": map[string]any{"result": want["outputSchema"]}, "required": []any{"result"},
					}) {
						// A legacy-era bundle of a server that did not wrap
						// (mcp-go): listed wrapped toward legacy clients,
						// which required an object outputSchema.
						wrapped++
						got["outputSchema"] = want["outputSchema"]
					}
					for k := range mergeKeys(got, want) {
						if !reflect.DeepEqual(got[k], want[k]) {
							g, _ := json.Marshal(got[k])
							w, _ := json.Marshal(want[k])
							t.Errorf("tool %q, %q:\n listed %.300s\n bundle %.300s", srv.Tools[j].Name, k, g, w)
						}
					}
				}
				if wrapped > 0 {
					t.Logf("%d tools listed wrapped toward %s clients", wrapped, version)
				}
			})
		}
	}
}

// mergeKeys returns the keys of a and b.
func mergeKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
