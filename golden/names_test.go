package golden

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/synth"
)

// goldenServers returns every server of every golden bundle, by case.
func goldenServers(t *testing.T) map[string]bundle.Server {
	t.Helper()
	matches, err := filepath.Glob("*/bundle.json")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no golden/*/bundle.json: %v", err)
	}
	out := map[string]bundle.Server{}
	for _, m := range matches {
		b, err := bundle.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range b.Servers {
			out[filepath.Dir(m)+"/"+s.ID] = s
		}
	}
	return out
}

// goAPINames builds srv's IR and returns, per tool, the names of the types
// its arguments and result use at every path (JSON names; recursion cut
// where a type repeats) and the enum constants, as "tool: path = name"
// lines, sorted and each once.
func goAPINames(t *testing.T, srv bundle.Server) []string {
	t.Helper()
	p, err := ir.BuildServer(&srv, ir.PackageName(srv.ID), ir.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, tool := range p.Tools {
		// Every path to a type, not only the first: a walk that marked
		// types seen would name them at paths that follow property order.
		onPath := map[*ir.Type]bool{}
		var walk func(path string, x *ir.Type)
		walk = func(path string, x *ir.Type) {
			if x == nil || onPath[x] {
				return
			}
			onPath[x] = true
			defer delete(onPath, x)
			if x.Named() {
				lines = append(lines, tool.Name+": "+path+" = "+x.Name)
			}
			if x.Enum != nil {
				for _, v := range x.Enum.Values {
					lines = append(lines, tool.Name+": "+path+" const "+v.Const+" = "+v.Literal)
				}
			}
			walk(path+"[]", x.Elem)
			walk(path+"{}", x.Extra)
			for _, f := range x.Fields {
				walk(path+"."+f.JSONName, f.Type)
			}
			if x.Union != nil {
				for _, v := range x.Union.Variants {
					walk(path+"|"+v.Name, v.Type)
				}
			}
		}
		walk("args", tool.Args)
		walk("result", tool.Result)
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// TestNamesStableWhenAnUnrelatedToolIsAdded: for every golden server,
// adding a tool whose types have names of their own renames nothing: the
// Go API of the other tools is the same line for line (issue 17).
func TestNamesStableWhenAnUnrelatedToolIsAdded(t *testing.T) {
	unrelated, err := bundle.NewTool(json.RawMessage(`{"name":"zz_unrelated_probe","inputSchema":{"type":"object","properties":{
		"zz_payload":{"type":"object","properties":{"zz_rows":{"type":"array","items":{"type":"object","properties":{"zz_cell":{"type":"string","enum":["zz_a","zz_b"]}}}}}}}},
		"outputSchema":{"type":"object","properties":{"zz_echo":{"type":"object","properties":{"zz_n":{"type":"integer"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, srv := range goldenServers(t) {
		before := goAPINames(t, srv)
		with := srv
		with.Tools = append(slices.Clone(srv.Tools), unrelated)
		var after []string
		for _, l := range goAPINames(t, with) {
			if !strings.HasPrefix(l, "zz_unrelated_probe: ") {
				after = append(after, l)
			}
		}
		if !slices.Equal(before, after) {
			t.Errorf("%s: adding an unrelated tool changed the Go API:\n%s", name, lineDiff(before, after))
		}
	}
}

// TestNamesStableWhenAlternativesAreShuffled: for every golden server,
// listing the alternatives of every anyOf and oneOf in another order (and
// the tools in another order; the tools pass through map[string]any, so
// their properties come out in sorted order too) leaves every type and
// constant name at every path as it was: a shared type's name does not
// follow which identical member comes first (the gap issue 15 handed to
// issue 17).
func TestNamesStableWhenAlternativesAreShuffled(t *testing.T) {
	for name, srv := range goldenServers(t) {
		before := goAPINames(t, srv)
		for seed := range uint64(5) {
			r := rand.New(rand.NewPCG(seed, 17))
			shuffledSrv := srv
			shuffledSrv.Tools = nil
			for _, tool := range srv.Tools {
				var v any
				if err := json.Unmarshal(tool.Raw, &v); err != nil {
					t.Fatal(err)
				}
				raw, err := json.Marshal(synth.ShuffleAlternatives(r, v))
				if err != nil {
					t.Fatal(err)
				}
				nt, err := bundle.NewTool(raw)
				if err != nil {
					t.Fatal(err)
				}
				shuffledSrv.Tools = append(shuffledSrv.Tools, nt)
			}
			r.Shuffle(len(shuffledSrv.Tools), func(i, j int) {
				shuffledSrv.Tools[i], shuffledSrv.Tools[j] = shuffledSrv.Tools[j], shuffledSrv.Tools[i]
			})
			if after := goAPINames(t, shuffledSrv); !slices.Equal(before, after) {
				t.Errorf("%s, seed %d: shuffled alternatives changed the names:\n%s", name, seed, lineDiff(before, after))
			}
		}
	}
}

// lineDiff lists the lines only one side has.
func lineDiff(a, b []string) string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 2000 {
		out = append(out[:20], "…")
	}
	return strings.Join(out, "\n")
}
