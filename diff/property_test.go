package diff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/synth"
)

// schemaGen draws random JSON Schemas as decoded JSON values: objects from
// a small pool of property names, the scalar types, enums, arrays, unions
// (anyOf, oneOf) whose alternatives may repeat the same bare type, and
// "$ref"s into the root's "$defs". A pool of shared sub-schemas makes tools
// repeat shapes, so that identical types merge and names collide.
type schemaGen struct {
	r      *rand.Rand
	shared []any
	defs   int // "$defs" entries of the schema being drawn
}

var propNames = []string{"id", "name", "filter", "value", "kind", "items", "limit", "options"}

func (g *schemaGen) schema(depth int) any {
	if len(g.shared) > 0 && g.r.IntN(4) == 0 {
		return g.shared[g.r.IntN(len(g.shared))]
	}
	n := 9
	if depth <= 0 {
		n = 5 // leaves only
	}
	switch g.r.IntN(n) {
	case 0:
		return map[string]any{"type": "string"}
	case 1:
		return map[string]any{"type": "integer", "minimum": float64(g.r.IntN(3))}
	case 2:
		return map[string]any{"type": "boolean", "description": "a flag"}
	case 3:
		vals := []any{"a", "b", "c", "d"}[:1+g.r.IntN(4)]
		return map[string]any{"enum": vals}
	case 4:
		if g.defs > 0 {
			return map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", g.r.IntN(g.defs))}
		}
		return map[string]any{"type": "number"}
	case 5:
		return map[string]any{"type": "array", "items": g.schema(depth - 1)}
	case 6, 7:
		return g.object(depth - 1)
	default:
		kw := []string{"anyOf", "oneOf"}[g.r.IntN(2)]
		bare := []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}, map[string]any{"type": "null"}}
		var alts []any
		for range 2 + g.r.IntN(3) {
			if g.r.IntN(2) == 0 {
				alts = append(alts, bare[g.r.IntN(len(bare))]) // repeats on purpose
			} else {
				alts = append(alts, g.schema(depth-1))
			}
		}
		return map[string]any{kw: alts}
	}
}

func (g *schemaGen) object(depth int) map[string]any {
	props := map[string]any{}
	var req []any
	for _, name := range propNames {
		if g.r.IntN(3) == 0 {
			props[name] = g.schema(depth)
			if g.r.IntN(2) == 0 {
				req = append(req, name)
			}
		}
	}
	o := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		o["required"] = req
	}
	if g.r.IntN(5) == 0 {
		o["title"] = []string{"Filter", "Options", "Item"}[g.r.IntN(3)]
	}
	return o
}

// rootSchema draws a tool's inputSchema or outputSchema: an object, with
// "$defs" the rest of it may refer to.
func (g *schemaGen) rootSchema() map[string]any {
	g.defs = g.r.IntN(3)
	defs := map[string]any{}
	for i := range g.defs {
		defs[fmt.Sprintf("d%d", i)] = g.object(1)
	}
	root := g.object(2)
	if g.defs > 0 {
		root["$defs"] = defs
	}
	g.defs = 0
	return root
}

// randomTools draws 1 to 6 tools as decoded JSON objects.
func randomTools(r *rand.Rand) []map[string]any {
	g := &schemaGen{r: r}
	for range 3 {
		g.shared = append(g.shared, g.object(1))
	}
	names := []string{"search", "get_item", "list_items", "update", "delete", "search_all"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var tools []map[string]any
	for _, name := range names[:1+r.IntN(len(names))] {
		t := map[string]any{"name": name, "inputSchema": g.rootSchema()}
		if r.IntN(2) == 0 {
			t["outputSchema"] = g.rootSchema()
		}
		tools = append(tools, t)
	}
	return tools
}

// serverOf makes a server of the tools in the order given, as a live
// server lists them (`mcpbind check` compares such a server with a bundle).
func serverOf(t *testing.T, tools []map[string]any) bundle.Server {
	t.Helper()
	s := bundle.Server{ID: "s", ProtocolVersion: "2026-07-28", Transport: bundle.TransportStdio, ServerInfo: json.RawMessage(`{"name":"s"}`)}
	for _, tm := range tools {
		raw, err := json.Marshal(tm)
		if err != nil {
			t.Fatal(err)
		}
		tool, err := bundle.NewTool(raw)
		if err != nil {
			t.Fatal(err)
		}
		s.Tools = append(s.Tools, tool)
	}
	return s
}

// TestCompareIsOrderFree: for random bundles B, diff B B reports nothing;
// neither does diff B B' where B' lists the same tools in another order, in
// either direction (the Go API included: `mcpbind check` compares a bundle,
// tools by name, with a live server's list in the server's order); and
// where B' also lists the alternatives of every union in another order, the
// schemas compare equal (the Go API of a union may follow the order of its
// alternatives, so it is not asked of that case). B is as Parse reads it.
func TestCompareIsOrderFree(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 15))
		tools := randomTools(r)
		data, err := (&bundle.Bundle{Servers: []bundle.Server{serverOf(t, tools)}}).Marshal()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, err := bundle.Parse(data, "b.json")
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		reordered := slices.Clone(tools)
		for len(reordered) > 1 && slices.EqualFunc(reordered, tools, func(x, y map[string]any) bool { return x["name"] == y["name"] }) {
			r.Shuffle(len(reordered), func(i, j int) { reordered[i], reordered[j] = reordered[j], reordered[i] })
		}
		alts := make([]map[string]any, len(reordered))
		for i, tm := range reordered {
			alts[i] = synth.ShuffleAlternatives(r, tm).(map[string]any)
		}
		bt := &bundle.Bundle{Servers: []bundle.Server{serverOf(t, reordered)}}
		ba := &bundle.Bundle{Servers: []bundle.Server{serverOf(t, alts)}}
		for _, c := range []struct {
			name     string
			old, new *bundle.Bundle
			api      bool
		}{
			{"B B", b, b, true},
			{"B tools(B)", b, bt, true}, {"tools(B) B", bt, b, true},
			{"B alternatives(B)", b, ba, true}, {"alternatives(B) B", ba, b, true},
		} {
			changes := Compare(c.old, c.new).Changes
			if !c.api {
				changes = slices.DeleteFunc(changes, func(ch Change) bool { return ch.Class == API })
			}
			if len(changes) > 0 {
				t.Errorf("seed %d: diff %s reports %d changes, first %s %s %s: %s\nB: %s", seed, c.name, len(changes),
					changes[0].Class, changes[0].Tool, changes[0].Pointer, changes[0].Message, data)
				return
			}
		}
	}
}

// TestCompareUnionAlternativesAsMultiset: identical alternatives of one
// union pair up as a multiset, also beside a different one.
func TestCompareUnionAlternativesAsMultiset(t *testing.T) {
	for _, union := range []string{
		`{"anyOf":[{"type":"string"},{"type":"string"}]}`,
		`{"anyOf":[{"type":"string"},{"type":"string"},{"type":"integer"}]}`,
		`{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"string"},{"type":"string"}]}`,
	} {
		var schema any
		if err := json.Unmarshal([]byte(`{"type":"object","properties":{"v":`+union+`}}`), &schema); err != nil {
			t.Fatal(err)
		}
		b := &bundle.Bundle{Servers: []bundle.Server{serverOf(t, []map[string]any{{"name": "t", "inputSchema": schema}})}}
		if r := Compare(b, b); len(r.Changes) > 0 {
			t.Errorf("%s: diff B B reports %v", union, r.Changes)
		}
	}
	// Fewer copies on one side is still a change.
	one := &bundle.Bundle{Servers: []bundle.Server{serverOf(t, []map[string]any{{"name": "t", "inputSchema": map[string]any{
		"type": "object", "properties": map[string]any{"v": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}}}}})}}
	three := &bundle.Bundle{Servers: []bundle.Server{serverOf(t, []map[string]any{{"name": "t", "inputSchema": map[string]any{
		"type": "object", "properties": map[string]any{"v": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}}}}})}}
	r := Compare(one, three)
	if !slices.ContainsFunc(r.Changes, func(c Change) bool { return c.Code == "alternative-widened" }) {
		t.Errorf("one string → two strings: %v, want an alternative added", r.Changes)
	}
}
