package bundle

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndentAsJSONIndent: up to MaxIndentDepth levels, indent writes what
// json.Indent writes (every golden and example bundle, and random
// documents with empty containers, escapes and nested strings holding
// brackets), so bundles of real servers keep their bytes.
func TestIndentAsJSONIndent(t *testing.T) {
	files, _ := filepath.Glob("../golden/*/bundle.json")
	more, _ := filepath.Glob("../examples/*/*.json")
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("found %d bundles", len(files))
	}
	var docs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		v := randomValue(r, 0)
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	for _, doc := range docs {
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indent(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indent differs from json.Indent for %.200s", compact.Bytes())
		}
	}
}

// randomValue is a JSON value at most 12 levels deep.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(7); {
	case depth >= 12 || k == 0:
		return []string{"a\"]}", `\`, "{[", "é\u2028", ""}[r.IntN(5)]
	case k == 1:
		return r.Float64() * 1e6
	case k == 2:
		return nil
	case k < 5:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for i := range r.IntN(4) {
			m[strings.Repeat("k", i+1)+"\":{"] = randomValue(r, depth+1)
		}
		return m
	}
}

// TestMarshalLinearInDepth: a bundle holding a schema nested n deep takes
// bytes linear in n (indentation stops at MaxIndentDepth), and decodes back
// to the same tools.
func TestMarshalLinearInDepth(t *testing.T) {
	size := func(depth int) int {
		schema := `{"type":"string"}`
		for range depth {
			schema = `{"type":"object","properties":{"a":` + schema + `}}`
		}
		tool := json.RawMessage(`{"name":"deep","inputSchema":` + schema + `}`)
		nt, err := NewTool(tool)
		if err != nil {
			t.Fatal(err)
		}
		b := &Bundle{BundleVersion: Version, Servers: []Server{{ID: "s", ProtocolVersion: "2025-11-25", Transport: TransportStdio,
			ServerInfo: json.RawMessage(`{"name":"s","version":"1"}`), Tools: []Tool{nt}}}}
		data, err := b.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(data, "deep.json")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Servers[0].Tools[0].Raw, tool) {
			t.Fatalf("depth %d: the tool did not come back as it was", depth)
		}
		return len(data)
	}
	small, large := size(200), size(800)
	if large > 5*small {
		t.Errorf("bundle of a schema 800 deep is %d bytes, %.1f× the one 200 deep (%d bytes): not linear", large, float64(large)/float64(small), small)
	}
}
